package metrics

import (
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/record"
)

// reasoningStream is a streaming chat record whose first two chunks are
// reasoning, followed by two text chunks and a usage-only chunk:
//
//	+10ms reasoning "think hard"   (first token)
//	+15ms reasoning " more"
//	+20ms text "Hello"             (first output token)
//	+26ms text " big world"        (last content)
//	+40ms usage only               (ignored for timing)
//
// Tokens (one per word of the joined texts): output "Hello big world" = 3,
// reasoning "think hard more" = 3, OSL = 6; ISL = 7.
func reasoningStream(start int64) *record.Record {
	return rec(start, true, 7,
		chunk{at: 10 * ms, reasoning: "think hard"},
		chunk{at: 15 * ms, reasoning: " more"},
		chunk{at: 20 * ms, text: "Hello"},
		chunk{at: 26 * ms, text: " big world"},
		chunk{at: 40 * ms, usage: usage(8, 6, 14, -1)},
	)
}

func TestComputeStreaming(t *testing.T) {
	vals := Compute(streamingChat(), reasoningStream(5*ms))
	wantOrder := []string{
		"input_sequence_length", "time_to_first_token", "time_to_second_token",
		"time_to_first_output_token", "request_latency", "decode_duration",
		"output_token_count", "reasoning_token_count", "inter_chunk_latency",
		"output_sequence_length", "inter_token_latency", "output_token_throughput_per_user",
		"prefill_throughput_per_user", "e2e_output_token_throughput",
		"usage_prompt_tokens", "usage_completion_tokens", "usage_total_tokens",
		"usage_prompt_tokens_diff_pct", "usage_completion_tokens_diff_pct",
	}
	if got := tags(vals); !slices.Equal(got, wantOrder) {
		t.Fatalf("tags\n got %v\nwant %v", got, wantOrder)
	}
	m := valueMap(vals)
	want := []struct {
		tag   string
		value float64
		unit  string
		isInt bool
	}{
		{"input_sequence_length", 7, "tokens", true},
		{"time_to_first_token", 10, "ms", false},                              // reasoning counts as first token
		{"time_to_second_token", 5, "ms", false},                              // 15 - 10
		{"time_to_first_output_token", 20, "ms", false},                       // first text chunk
		{"request_latency", 26, "ms", false},                                  // last content, not the usage chunk
		{"decode_duration", 16, "ms", false},                                  // 26 - 10
		{"output_token_count", 3, "tokens", true},                             // "Hello big world"
		{"reasoning_token_count", 3, "tokens", true},                          // "think hard more"
		{"output_sequence_length", 6, "tokens", true},                         // 3 + 3
		{"inter_token_latency", 3.2, "ms", false},                             // (26 - 10) / (6 - 1)
		{"output_token_throughput_per_user", 312.5, "tokens/sec/user", false}, // 1 / 3.2ms
		{"prefill_throughput_per_user", 700, "tokens/sec/user", false},        // 7 / 10ms
		{"e2e_output_token_throughput", 6 / 0.026, "tokens/sec/user", false},  // 6 / 26ms
		{"usage_prompt_tokens", 8, "tokens", true},
		{"usage_completion_tokens", 6, "tokens", true},
		{"usage_total_tokens", 14, "tokens", true},
		{"usage_prompt_tokens_diff_pct", 100.0 / 7, "%", false}, // |8-7|/7*100
		{"usage_completion_tokens_diff_pct", 0, "%", false},
	}
	for _, w := range want {
		v := m[w.tag]
		if v.Unit != w.unit || v.Int != w.isInt {
			t.Errorf("%s: unit %q int %v, want %q %v", w.tag, v.Unit, v.Int, w.unit, w.isInt)
		}
		checkNear(t, w.tag, v.Value, w.value)
	}
	icl := m["inter_chunk_latency"]
	if icl.Unit != "ms" || len(icl.List) != 3 {
		t.Fatalf("inter_chunk_latency = %+v", icl)
	}
	for i, w := range []float64{5, 5, 6} {
		checkNear(t, "inter_chunk_latency", icl.List[i], w)
	}
}

func TestComputeCases(t *testing.T) {
	tests := []struct {
		name   string
		cfg    *Config
		rec    *record.Record
		want   map[string]float64 // expected display values
		absent []string
	}{
		{
			name: "single token: no ITL when OSL < 2",
			cfg:  streamingChat(),
			rec:  rec(0, true, 4, chunk{at: 8 * ms, text: "Hi"}),
			want: map[string]float64{"time_to_first_token": 8, "request_latency": 8, "output_sequence_length": 1},
			absent: []string{"inter_token_latency", "output_token_throughput_per_user",
				"time_to_second_token", "inter_chunk_latency"},
		},
		{
			name: "texts are joined before counting",
			cfg:  streamingChat(),
			rec: rec(0, true, 4,
				chunk{at: 1 * ms, text: "ab"}, chunk{at: 2 * ms, text: "cd"}, chunk{at: 3 * ms, text: " ef"}),
			// "abcd ef" is 2 tokens: ITL = (3 - 1) / (2 - 1) = 2 ms.
			want: map[string]float64{"output_sequence_length": 2, "inter_token_latency": 2, "time_to_second_token": 1},
		},
		{
			name: "non-streaming: latency to body end, no streaming metrics",
			cfg:  plainChat(),
			rec:  rec(0, false, 5, chunk{at: 30 * ms, text: "one two three", usage: usage(5, 3, 8, -1)}),
			// e2e = 3 tokens / 0.030 s
			want: map[string]float64{"request_latency": 30, "output_sequence_length": 3, "e2e_output_token_throughput": 100},
			absent: []string{"time_to_first_token", "inter_token_latency", "inter_chunk_latency",
				"time_to_first_output_token", "decode_duration"},
		},
		{
			name: "streaming run, record not streamed",
			cfg:  streamingChat(),
			rec:  rec(0, false, 5, chunk{at: 30 * ms, text: "one two"}),
			want: map[string]float64{"request_latency": 30},
			absent: []string{"time_to_first_token", "inter_token_latency", "time_to_second_token",
				"inter_chunk_latency"},
		},
		{
			name: "usage-only trailing chunk does not move timing",
			cfg:  streamingChat(),
			rec: rec(0, true, 2,
				chunk{at: 4 * ms, text: "a"}, chunk{at: 6 * ms, text: " b"},
				chunk{at: 50 * ms, usage: usage(2, 2, 4, -1)}),
			want: map[string]float64{"request_latency": 6, "inter_token_latency": 2, "time_to_second_token": 2},
		},
		{
			name: "a response without content never counts as first token",
			cfg:  streamingChat(),
			rec:  rec(0, true, 2, chunk{at: 1 * ms}, chunk{at: 3 * ms, text: "a"}, chunk{at: 7 * ms, text: " b"}),
			want: map[string]float64{"time_to_first_token": 3, "time_to_second_token": 4},
		},
		{
			name:   "unknown ISL",
			cfg:    streamingChat(),
			rec:    rec(0, true, -1, chunk{at: 1 * ms, text: "a"}),
			absent: []string{"input_sequence_length", "prefill_throughput_per_user"},
		},
		{
			name: "osl mismatch diff is signed",
			cfg:  plainChat(),
			rec: func() *record.Record {
				r := rec(0, false, 1, chunk{at: ms, text: "a b c d e f g h i"})
				r.RequestedOutputTokens = 10
				return r
			}(),
			want: map[string]float64{"osl_mismatch_diff_pct": -10}, // (9 - 10) / 10 * 100
		},
		{
			name:   "embeddings: latency and ISL only",
			cfg:    &Config{TokenizesInput: true},
			rec:    &record.Record{StartNS: 0, InputTokens: 9, Responses: []record.Response{{PerfNS: 2 * ms, Output: &record.Output{Embeddings: 3}}}},
			want:   map[string]float64{"request_latency": 2, "input_sequence_length": 9},
			absent: []string{"output_sequence_length", "e2e_output_token_throughput"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := valueMap(Compute(tt.cfg, tt.rec))
			for tag, want := range tt.want {
				v, ok := m[tag]
				if !ok {
					t.Errorf("%s missing", tag)
					continue
				}
				checkNear(t, tag, v.Value, want)
			}
			for _, tag := range tt.absent {
				if _, ok := m[tag]; ok {
					t.Errorf("%s present", tag)
				}
			}
		})
	}
}

func TestComputeErrorRecords(t *testing.T) {
	cfg := streamingChat()
	failed := &record.Record{StartNS: ms, EndNS: 2 * ms, InputTokens: 12,
		Error: &record.Error{Code: 500, Type: "Internal Server Error", Message: "boom"}}
	got := Compute(cfg, failed)
	want := []RecordValue{{Tag: "error_isl", Unit: "tokens", Value: 12, Int: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("error record values = %+v, want %+v", got, want)
	}
	failed.InputTokens = -1
	if got := Compute(cfg, failed); len(got) != 0 {
		t.Errorf("unknown ISL: %+v", got)
	}
	// A record with responses but an error is still an error record.
	withChunks := reasoningStream(0)
	withChunks.Error = &record.Error{Code: 499, Type: "RequestCancellationError"}
	if got := tags(Compute(cfg, withChunks)); !slices.Equal(got, []string{"error_isl"}) {
		t.Errorf("cancelled record values = %v", got)
	}
}

func TestComputeServerTokenCount(t *testing.T) {
	cfg := &Config{Streaming: true, ProducesTokens: true, TokenizesInput: true, UseServerTokenCount: true}
	r := rec(0, true, 999, // the client ISL is ignored
		chunk{at: 1 * ms, reasoning: "x y z"},
		chunk{at: 2 * ms, text: "a b", usage: usage(90, 10, 100, 2)}, // superseded
		chunk{at: 5 * ms, usage: usage(100, 50, 150, 20)},
	)
	m := valueMap(Compute(cfg, r))
	for tag, want := range map[string]float64{
		"input_sequence_length":  100,
		"reasoning_token_count":  20,
		"output_token_count":     30, // completion - reasoning
		"output_sequence_length": 50,
		"inter_token_latency":    1.0 / 49, // (2 - 1) ms / (50 - 1)
		"usage_reasoning_tokens": 20,
	} {
		checkNear(t, tag, m[tag].Value, want)
	}
	for _, tag := range []string{"usage_prompt_tokens_diff_pct", "usage_completion_tokens_diff_pct", "usage_reasoning_tokens_diff_pct"} {
		if _, ok := m[tag]; ok {
			t.Errorf("%s present with server token counts", tag)
		}
	}

	// Reasoning above completion clamps output to 0.
	r = rec(0, true, 0, chunk{at: ms, text: "a"}, chunk{at: 2 * ms, usage: usage(3, 10, 13, 20)})
	m = valueMap(Compute(cfg, r))
	if m["output_token_count"].Value != 0 || m["output_sequence_length"].Value != 20 {
		t.Errorf("clamp: output %v osl %v", m["output_token_count"].Value, m["output_sequence_length"].Value)
	}

	// No usage at all: no token metrics, no tokenizer needed.
	m = valueMap(Compute(cfg, rec(0, true, 5, chunk{at: ms, text: "a"})))
	for _, tag := range []string{"input_sequence_length", "output_sequence_length", "output_token_count"} {
		if _, ok := m[tag]; ok {
			t.Errorf("%s present without usage", tag)
		}
	}
}

func TestComputeGoodCount(t *testing.T) {
	cfg := streamingChat()
	cfg.Goodput = []SLO{{"time_to_first_token", 10}, {"output_token_throughput_per_user", 300}}
	// TTFT exactly 10 ms passes (<=); OTPU 312.5 >= 300 passes.
	m := valueMap(Compute(cfg, reasoningStream(0)))
	if v := m["good_request_count"]; v.Value != 1 || v.Unit != "requests" || !v.Int {
		t.Errorf("good_request_count = %+v, want 1 requests", v)
	}
}

func TestComputeConcurrent(t *testing.T) {
	cfg := streamingChat()
	cfg.Goodput = []SLO{{"request_latency", 30}}
	r := reasoningStream(0)
	want := Compute(cfg, r)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if got := Compute(cfg, r); !reflect.DeepEqual(got, want) {
					t.Error("concurrent Compute differs")
					return
				}
			}
		})
	}
	wg.Wait()
}
