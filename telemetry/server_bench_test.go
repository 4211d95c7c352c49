package telemetry

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// vllmExposition returns a vLLM-like exposition of about 2,000 series
// (every sample line counts, as Prometheus counts series): per model and
// engine, gauges, counters with finish reasons and histograms of vLLM's
// bucket layouts; values move with step so that scrapes differ.
func vllmExposition(step int) []byte {
	var b strings.Builder
	models := []string{"meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-0.6B", "mistral-7b", "gemma-2b"}
	engines := []string{"0", "1", "2", "3", "4"}
	latency := []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560}
	tokens := []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000}
	each := func(f func(labels string, k int)) {
		k := 0
		for _, m := range models {
			for _, e := range engines {
				f(fmt.Sprintf(`engine="%s",model_name="%s"`, e, m), k)
				k++
			}
		}
	}
	for _, g := range []string{"num_requests_running", "num_requests_waiting", "kv_cache_usage_perc", "num_preemptions_current", "gpu_prefix_cache_hit_rate"} {
		fmt.Fprintf(&b, "# HELP vllm:%s A gauge.\n# TYPE vllm:%s gauge\n", g, g)
		each(func(l string, k int) { fmt.Fprintf(&b, "vllm:%s{%s} %d\n", g, l, (step+k)%17) })
	}
	for _, c := range []string{"prompt_tokens", "generation_tokens", "num_preemptions", "prefix_cache_queries", "prefix_cache_hits"} {
		fmt.Fprintf(&b, "# HELP vllm:%s_total A counter.\n# TYPE vllm:%s_total counter\n", c, c)
		each(func(l string, k int) { fmt.Fprintf(&b, "vllm:%s_total{%s} %d\n", c, l, step*(k+1)*31) })
	}
	fmt.Fprintf(&b, "# HELP vllm:request_success_total Requests.\n# TYPE vllm:request_success_total counter\n")
	for _, r := range []string{"stop", "length", "abort"} {
		each(func(l string, k int) {
			fmt.Fprintf(&b, "vllm:request_success_total{%s,finished_reason=\"%s\"} %d\n", l, r, step*(k+2))
		})
	}
	hist := func(name string, bounds []float64) {
		fmt.Fprintf(&b, "# HELP vllm:%s A histogram.\n# TYPE vllm:%s histogram\n", name, name)
		each(func(l string, k int) {
			n := step * (k + 3)
			for i, ub := range bounds {
				fmt.Fprintf(&b, "vllm:%s_bucket{%s,le=\"%s\"} %d\n", name, l, formatLE(ub), n*(i+1)/len(bounds))
			}
			fmt.Fprintf(&b, "vllm:%s_bucket{%s,le=\"+Inf\"} %d\nvllm:%s_sum{%s} %g\nvllm:%s_count{%s} %d\n", name, l, n, name, l, float64(n)*0.37, name, l, n)
		})
	}
	for _, h := range []string{"time_to_first_token_seconds", "inter_token_latency_seconds", "e2e_request_latency_seconds"} {
		hist(h, latency)
	}
	hist("request_prompt_tokens", tokens)
	hist("request_generation_tokens", tokens)
	return []byte(b.String())
}

func TestVLLMExpositionSize(t *testing.T) {
	body := vllmExposition(1)
	lines := 0
	for _, l := range strings.Split(string(body), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			lines++
		}
	}
	if lines < 1900 || lines > 2600 {
		t.Errorf("%d series, want about 2,000", lines)
	}
	if _, err := ParseExposition(body); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkServerScrape is the consumer-side cost of one scrape of a
// 2,000-series vLLM-like endpoint: parsing the exposition, folding it into
// the accumulator (in the window, with 1 s timeslices) and writing its
// de-duplicated JSONL record. At one scrape per 0.1 s, ns/op / 1e8 is the
// fraction of a core it takes.
func BenchmarkServerScrape(b *testing.B) {
	bodies := [][]byte{vllmExposition(1), vllmExposition(2), vllmExposition(3), vllmExposition(4)}
	acc := NewServerMetrics(ServerMetricsOptions{SliceDuration: time.Second})
	acc.Start(0)
	dedup := NewServerDedup()
	var buf []byte
	b.SetBytes(int64(len(bodies[0])))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		fams, err := ParseExposition(bodies[i%len(bodies)])
		if err != nil {
			b.Fatal(err)
		}
		s := Sample{Kind: KindServer, Source: "http://localhost:8000/metrics", TimeNS: int64(i) * 1e8, LatencyNS: 1e6, Server: fams}
		acc.Add(s)
		buf = dedup.Append(buf[:0], s)
	}
}

// BenchmarkServerScrapeParts splits BenchmarkServerScrape into its steps.
func BenchmarkServerScrapeParts(b *testing.B) {
	body := vllmExposition(1)
	fams, err := ParseExposition(body)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ParseExposition(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parse-expfmt", func(b *testing.B) { // the slow path, for comparison
		b.ReportAllocs()
		for b.Loop() {
			if _, err := expfmtParse(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("add", func(b *testing.B) {
		acc := NewServerMetrics(ServerMetricsOptions{SliceDuration: time.Second})
		acc.Start(0)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			acc.Add(Sample{Kind: KindServer, Source: "u", TimeNS: int64(i) * 1e8, Server: fams})
		}
	})
	b.Run("jsonl", func(b *testing.B) {
		var buf []byte
		b.ReportAllocs()
		for b.Loop() {
			buf = AppendServerRecord(buf[:0], Sample{Kind: KindServer, Source: "u", Server: fams})
		}
	})
	b.Run("summary", func(b *testing.B) {
		acc := NewServerMetrics(ServerMetricsOptions{})
		acc.Start(0)
		for i := range 600 { // a minute of scrapes
			f, _ := ParseExposition(vllmExposition(i))
			acc.Add(Sample{Kind: KindServer, Source: "u", TimeNS: int64(i) * 1e8, Server: f})
		}
		b.ReportAllocs()
		for b.Loop() {
			_ = acc.Summary()
		}
	})
}
