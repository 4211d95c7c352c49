package mockserver

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestVLLMCountsKnownRequests sends requests whose prompt and output
// lengths are known by construction (token-id prompts, max_tokens, an EOS
// length) and checks every vllm:* counter and histogram against totals
// worked out by hand.
func TestVLLMCountsKnownRequests(t *testing.T) {
	const ttft, itl = 20 * time.Millisecond, time.Millisecond
	s := startServer(t, Config{TTFT: ttft, ITL: itl, EOSTokens: 6})
	reqs := []struct {
		prompt, maxTokens int
		stream, ignoreEOS bool
	}{
		{3, 4, true, false},   // 4 tokens, length
		{10, 10, true, false}, // EOS after 6, stop
		{7, 5, false, false},  // 5, length
		{1, 20, false, false}, // 6, stop
		{2, 8, true, true},    // 8, length (EOS ignored)
	}
	const (
		wantPrompt = 3 + 10 + 7 + 1 + 2
		wantGen    = 4 + 6 + 5 + 6 + 8
	)
	var wg sync.WaitGroup
	for _, r := range reqs {
		body := fmt.Sprintf(`{"model":"m","prompt":%s,"max_tokens":%d,"stream":%t,"ignore_eos":%t}`,
			promptIDs(r.prompt), r.maxTokens, r.stream, r.ignoreEOS)
		wg.Go(func() {
			resp := post(t, s, "/v1/completions", "", body)
			readAll(t, resp.Body)
		})
	}
	wg.Wait()

	var f families
	// The handler counts the end of a request after its last write, so the
	// client may get there first.
	eventually(t, func() error {
		f = scrape(t, s.URL()+"/metrics")
		if n, _, _ := f.hist(t, "vllm:e2e_request_latency_seconds"); n != uint64(len(reqs)) {
			return fmt.Errorf("e2e count %d, want %d", n, len(reqs))
		}
		return nil
	})
	engineLabels := []string{"engine=0", "model_name=mock-model"}
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"vllm:prompt_tokens_total", engineLabels, wantPrompt},
		{"vllm:generation_tokens_total", engineLabels, wantGen},
		{"vllm:prefix_cache_queries_total", engineLabels, wantPrompt},
		{"vllm:prefix_cache_hits_total", engineLabels, 0},
		{"vllm:request_success_total", append(engineLabels, "finished_reason=length"), 3},
		{"vllm:request_success_total", append(engineLabels, "finished_reason=stop"), 2},
		{"vllm:request_success_total", append(engineLabels, "finished_reason=abort"), 0},
		{"vllm:num_requests_running", engineLabels, 0},
		{"vllm:num_requests_waiting", engineLabels, 0},
		{"vllm:kv_cache_usage_perc", engineLabels, 0},
		{"vllm:gpu_cache_usage_perc", engineLabels, 0},
		{"mock_prompt_tokens_total", nil, wantPrompt},
	} {
		if got := f.value(t, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}

	// Prompts 3, 10, 7, 1, 2 and outputs 4, 6, 5, 6, 8 in the 1-2-5 buckets.
	for _, c := range []struct {
		name    string
		sum     float64
		buckets map[float64]uint64
	}{
		{"vllm:request_prompt_tokens", wantPrompt, map[float64]uint64{1: 1, 2: 2, 5: 3, 10: 5, 20: 5}},
		{"vllm:request_generation_tokens", wantGen, map[float64]uint64{1: 0, 2: 0, 5: 2, 10: 5, 20: 5}},
	} {
		n, sum, buckets := f.hist(t, c.name)
		if n != 5 || sum != c.sum {
			t.Errorf("%s: count %d sum %v, want 5 and %v", c.name, n, sum, c.sum)
		}
		for le, want := range c.buckets {
			if buckets[le] != want {
				t.Errorf("%s bucket le=%v: %d, want %d", c.name, le, buckets[le], want)
			}
		}
	}

	// The engine's times are the scripted ones, exactly: a TTFT of 20 ms
	// per request, an inter-token latency of 1 ms per output after the
	// first (tokens − requests of them), and their sums end to end.
	nITL := wantGen - len(reqs)
	for _, c := range []struct {
		name  string
		count int
		sum   float64
		le    float64 // the bucket every observation falls in
		below float64 // the bucket below it, empty
	}{
		{"vllm:time_to_first_token_seconds", len(reqs), float64(len(reqs)) * ttft.Seconds(), 0.02, 0.01},
		{"vllm:inter_token_latency_seconds", nITL, float64(nITL) * itl.Seconds(), 0.01, 0},
		{"vllm:e2e_request_latency_seconds", len(reqs), float64(len(reqs))*ttft.Seconds() + float64(nITL)*itl.Seconds(), 0.3, 0},
	} {
		n, sum, buckets := f.hist(t, c.name)
		if n != uint64(c.count) || math.Abs(sum-c.sum) > 1e-9 || buckets[c.le] != n || (c.below > 0 && buckets[c.below] != 0) {
			t.Errorf("%s: count %d sum %v buckets %v; want %d, %v, all at le=%v", c.name, n, sum, buckets, c.count, c.sum, c.le)
		}
	}
}

// TestVLLMHistogramBounds checks the bucket bounds against vLLM's own
// (vllm/v1/metrics/loggers.py, and build_1_2_5_buckets(max_model_len)).
func TestVLLMHistogramBounds(t *testing.T) {
	s := startServer(t, Config{MaxModelLen: 4096})
	f := scrape(t, s.URL()+"/metrics")
	inf := math.Inf(1)
	latency := []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0, inf}
	for name, want := range map[string][]float64{
		"vllm:time_to_first_token_seconds": {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0, inf},
		"vllm:inter_token_latency_seconds": {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, inf},
		"vllm:e2e_request_latency_seconds": latency,
		"vllm:request_prompt_tokens":       {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, inf},
		"vllm:request_generation_tokens":   {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, inf},
	} {
		if got := f.bounds(t, name); !slices.Equal(got, want) {
			t.Errorf("%s bounds %v, want %v", name, got, want)
		}
	}
	info := f.metric(t, "vllm:cache_config_info")
	labels := map[string]string{}
	for _, l := range info.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	if info.GetGauge().GetValue() != 1 || labels["block_size"] != "16" || labels["num_gpu_blocks"] != "8192" || labels["engine"] != "0" {
		t.Errorf("vllm:cache_config_info %v = %v", labels, info.GetGauge().GetValue())
	}
}

// TestVLLMGaugesFollowOpenStreams holds streams open and checks running,
// waiting and KV-cache usage against a hand count of their blocks.
func TestVLLMGaugesFollowOpenStreams(t *testing.T) {
	// Each stream: 20 prompt tokens and its first output token (the second
	// is an hour away) = 21 tokens = 2 blocks of 16; 100 blocks in all.
	s := startServer(t, Config{MaxNumSeqs: 2, NumGPUBlocks: 100, ITL: time.Hour})
	body := `{"model":"m","prompt":` + promptIDs(20) + `,"max_tokens":5,"stream":true}`
	gauges := func(running, waiting, kv float64) func() error {
		return func() error {
			f := scrape(t, s.URL()+"/metrics")
			r := f.value(t, "vllm:num_requests_running", "engine=0")
			w := f.value(t, "vllm:num_requests_waiting", "engine=0")
			u := f.value(t, "vllm:kv_cache_usage_perc", "engine=0")
			if r != running || w != waiting || math.Abs(u-kv) > 1e-12 || u < 0 || u > 1 {
				return fmt.Errorf("running %v waiting %v kv %v, want %v %v %v", r, w, u, running, waiting, kv)
			}
			return nil
		}
	}
	var cancels []func()
	defer func() {
		for _, c := range cancels {
			c()
		}
	}()
	for k, want := range []struct{ running, waiting, kv float64 }{
		{1, 0, 0.02},
		{2, 0, 0.04},
		{2, 1, 0.04}, // the third waits: only the two running hold blocks
		{2, 2, 0.04},
	} {
		cancels = append(cancels, openStream(t, s, body))
		t.Logf("%d streams open", k+1)
		eventually(t, gauges(want.running, want.waiting, want.kv))
	}
	for _, c := range cancels {
		c()
	}
	cancels = nil
	eventually(t, gauges(0, 0, 0))
	f := scrape(t, s.URL()+"/metrics")
	if got := f.value(t, "vllm:request_success_total", "finished_reason=abort"); got != 4 {
		t.Errorf("aborted requests %v, want 4", got)
	}
	if n, _, _ := f.hist(t, "vllm:e2e_request_latency_seconds"); n != 0 {
		t.Errorf("e2e count %d, want 0 (aborted requests do not finish)", n)
	}
}

// TestVLLMKVUsage checks the reservation of non-streaming responses and
// the clamp at 1.
func TestVLLMKVUsage(t *testing.T) {
	// Non-streaming: 10 prompt + 30 output tokens held at once = 3 blocks.
	s := startServer(t, Config{TTFT: time.Hour, NumGPUBlocks: 30})
	go func() {
		resp, err := http.Post(s.URL()+"/v1/completions", "application/json",
			strings.NewReader(`{"model":"m","prompt":`+promptIDs(10)+`,"max_tokens":30}`))
		if err == nil {
			resp.Body.Close()
		}
	}()
	eventually(t, func() error {
		if u := scrape(t, s.URL()+"/metrics").value(t, "vllm:kv_cache_usage_perc"); u != 0.1 {
			return fmt.Errorf("kv usage %v, want 0.1", u)
		}
		return nil
	})

	// Two streams of 2 blocks each in a 3-block cache: full, not 4/3.
	s = startServer(t, Config{NumGPUBlocks: 3, ITL: time.Hour})
	body := `{"model":"m","prompt":` + promptIDs(20) + `,"max_tokens":5,"stream":true}`
	for range 2 {
		defer openStream(t, s, body)()
	}
	eventually(t, func() error {
		if u := scrape(t, s.URL()+"/metrics").value(t, "vllm:kv_cache_usage_perc"); u != 1 {
			return fmt.Errorf("kv usage %v, want 1", u)
		}
		return nil
	})
}

// TestVLLMInjectedFaults: an injected error never reaches the engine; a
// reset aborts.
func TestVLLMInjectedFaults(t *testing.T) {
	s := startServer(t, Config{ErrorRate: 1})
	readAll(t, post(t, s, "/v1/completions", "", `{"prompt":[1,2],"max_tokens":3,"stream":true}`).Body)
	f := scrape(t, s.URL()+"/metrics")
	for _, name := range []string{"vllm:prompt_tokens_total", "vllm:num_requests_running"} {
		if got := f.value(t, name); got != 0 {
			t.Errorf("after an injected error %s = %v, want 0", name, got)
		}
	}

	s = startServer(t, Config{ResetRate: 1})
	resp := post(t, s, "/v1/completions", "", `{"prompt":[1,2],"max_tokens":3,"stream":true}`)
	_, _ = readSSE(resp)
	eventually(t, func() error {
		if got := scrape(t, s.URL()+"/metrics").value(t, "vllm:request_success_total", "finished_reason=abort"); got != 1 {
			return fmt.Errorf("aborted %v, want 1", got)
		}
		return nil
	})
}

// BenchmarkEngineRequest measures the engine's cost for one streamed
// request of 256 token events, from all CPUs at once (the atomics
// shared): start, the events, finish and end.
func BenchmarkEngineRequest(b *testing.B) {
	cfg, err := Config{}.withDefaults()
	if err != nil {
		b.Fatal(err)
	}
	e := newEngine(&cfg)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var r engineReq
		at := time.Now()
		for pb.Next() {
			e.start(&r, at, 100, 0)
			for range 256 {
				at = at.Add(time.Millisecond)
				e.token(&r, 1, at)
			}
			e.finished(&r, "length")
			e.end(&r)
		}
	})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/256, "ns/event")
}

// TestHistogramScrapeNeverSeesSumBehind: a scrape racing observations may
// see the sum run ahead of the buckets, never behind them: every
// observation a bucket shows is in the sum already.
func TestHistogramScrapeNeverSeesSumBehind(t *testing.T) {
	const v = 1000
	h := newHistogram("x", "x", []float64{1}, 1)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				for range 64 {
					h.observe(v)
				}
			}
		}
	}()
	deadline := time.Now().Add(100 * time.Millisecond)
	behind := 0
	for time.Now().Before(deadline) && behind == 0 {
		var count uint64
		for i := range h.counts {
			count += h.counts[i].Load()
		}
		if sum := h.sum.Load(); sum < count*v {
			behind++
		}
	}
	close(stop)
	<-done
	if behind > 0 {
		t.Errorf("a scrape saw a bucket count whose observation is not in the sum yet")
	}
}
