package export

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// TestWrapRich checks wrapRich against what rich 14 (AIPerf 0.13's)
// prints at width 140: a line keeps the space after its last word, and a
// line of exactly the width keeps it too.
func TestWrapRich(t *testing.T) {
	got := wrapRich(cacheReportingHint, consoleWidth)
	want := []string{
		"Token usage is reported but no prompt-cache read tokens were seen (usage.prompt_tokens_details.cached_tokens absent). If your server uses ",
		"prefix/KV caching, enable cache reporting so AIPerf can populate the prompt-cache metrics: vLLM --enable-prompt-tokens-details, SGLang ",
		"--enable-cache-report (TRT-LLM reports it by default).",
	}
	if !slices.Equal(got, want) {
		t.Errorf("hint:\n got %q\nwant %q", got, want)
	}
	got = wrapRich(strings.Repeat("a ", 80), 140)
	want = []string{strings.Repeat("a ", 70), strings.Repeat("a ", 10)}
	if !slices.Equal(got, want) {
		t.Errorf("a×80:\n got %q\nwant %q", got, want)
	}
}

// titles returns the table titles of a console text in order.
func titles(out string) []string {
	var ts []string
	for line := range strings.SplitSeq(out, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "NVIDIA AIPerf | ") {
			ts = append(ts, t)
		}
	}
	return ts
}

// TestConsole14Order checks the order of AIPerf 0.13's console exporters
// in a Schema14 report (error summary, HTTP Trace Timing, metrics, then
// the prompt-cache hint when prompt tokens came without cache reads) and
// that the 1.0 report keeps 0.8's (metrics, trace timing, errors).
func TestConsole14Order(t *testing.T) {
	s := &metrics.Summary{
		Results: []metrics.Result{
			{Tag: "request_count", Header: "Request Count", Unit: "requests", Scalar: true,
				Console: true, DisplayOrder: 1100, Avg: 3},
			{Tag: "total_usage_prompt_tokens", Header: "Total Usage Prompt Tokens", Unit: "tokens", Scalar: true,
				Group: metrics.GroupUsage, Console: true, DisplayOrder: 2000, Avg: 60},
			{Tag: "http_req_waiting", Header: "HTTP Waiting (TTFB)", Unit: "ms", Avg: 1, Max: 1},
		},
		Errors: []metrics.ErrorCount{{Error: record.Error{Code: 500, Type: "Internal Server Error", Message: "boom"}, Count: 1}},
	}
	write := func(schema string, trace bool) string {
		var buf bytes.Buffer
		if err := WriteConsoleExport(&buf, s, &RunInfo{SchemaVersion: schema, ShowTraceTiming: trace}); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	out := write(Schema14, true)
	want := []string{"NVIDIA AIPerf | Error Summary", "NVIDIA AIPerf | HTTP Trace Timing",
		"NVIDIA AIPerf | LLM Metrics: Usage", "NVIDIA AIPerf | LLM Metrics"}
	if got := titles(out); !slices.Equal(got, want) {
		t.Errorf("1.4 tables %q, want %q", got, want)
	}
	if !strings.HasSuffix(out, "┘\n\n"+strings.Join(wrapRich(cacheReportingHint, consoleWidth), "\n")+"\n") {
		t.Errorf("1.4 report does not end with the hint:\n%s", out)
	}

	s.Results = append(s.Results, metrics.Result{Tag: "total_usage_prompt_cache_read_tokens",
		Header: "Total Usage Prompt Cache Read Tokens", Unit: "tokens", Scalar: true, Avg: 0})
	if out := write(Schema14, false); strings.Contains(out, "prompt-cache") || strings.Contains(out, "HTTP Trace") {
		t.Errorf("hint with cache reads reported, or trace table without ShowTraceTiming:\n%s", out)
	}

	for _, schema := range []string{"", Schema10} {
		out := write(schema, true)
		want := []string{"NVIDIA AIPerf | LLM Metrics: Usage", "NVIDIA AIPerf | LLM Metrics",
			"NVIDIA AIPerf | HTTP Trace Timing", "NVIDIA AIPerf | Error Summary"}
		if got := titles(out); !slices.Equal(got, want) || strings.Contains(out, "prompt-cache") {
			t.Errorf("schema %q: tables %q, want %q, and no hint:\n%s", schema, got, want, out)
		}
	}
}
