package metrics

import (
	"math"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/record"
)

// words is a whitespace tokenizer: one token per field, so expected token
// counts can be computed by hand.
type words struct{}

func (words) Name() string { return "words" }

func (words) Encode(text string) []int {
	ids := make([]int, len(strings.Fields(text)))
	for i := range ids {
		ids[i] = i
	}
	return ids
}

func (words) Decode(ids []int) string { return strings.Repeat("w ", len(ids)) }

func (words) Count(text string) int { return len(strings.Fields(text)) }

const ms = int64(1_000_000) // nanoseconds per millisecond

// chunk is one response of a test record, at an offset from the start.
type chunk struct {
	at        int64
	text      string
	reasoning string
	usage     *record.Usage
}

// rec builds a valid profiling record starting at start.
func rec(start int64, streaming bool, isl int, chunks ...chunk) *record.Record {
	r := &record.Record{
		Phase: record.PhaseProfiling, StartNS: start, Streaming: streaming,
		InputTokens: isl,
	}
	for _, c := range chunks {
		r.Responses = append(r.Responses, record.Response{
			PerfNS: start + c.at, Text: c.text, Reasoning: c.reasoning, Usage: c.usage,
		})
		r.EndNS = start + c.at
	}
	return r
}

// usage builds a usage object; a negative count is absent.
func usage(prompt, completion, total, reasoning int64) *record.Usage {
	p := func(v int64) *int64 {
		if v < 0 {
			return nil
		}
		return &v
	}
	return &record.Usage{
		PromptTokens: p(prompt), CompletionTokens: p(completion),
		TotalTokens: p(total), ReasoningTokens: p(reasoning),
	}
}

func streamingChat() *Config {
	return &Config{Streaming: true, ProducesTokens: true, TokenizesInput: true, Tokenizer: words{}}
}

func plainChat() *Config {
	return &Config{ProducesTokens: true, TokenizesInput: true, Tokenizer: words{}}
}

// valueMap indexes record values by tag.
func valueMap(vals []RecordValue) map[string]RecordValue {
	m := make(map[string]RecordValue, len(vals))
	for _, v := range vals {
		m[v.Tag] = v
	}
	return m
}

func tags(vals []RecordValue) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = v.Tag
	}
	return out
}

// near reports whether got is within rel relative error of want.
func near(got, want, rel float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= rel*math.Max(math.Abs(want), math.Abs(got))
}

func checkNear(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !near(got, want, 1e-12) {
		t.Errorf("%s = %.17g, want %.17g", what, got, want)
	}
}

// result returns the summary result with tag, failing the test if absent.
func result(t *testing.T, s *Summary, tag string) *Result {
	t.Helper()
	r := s.Get(tag)
	if r == nil {
		t.Fatalf("summary has no %s", tag)
	}
	return r
}

// summarise runs Compute and Add over records and returns the summary.
func summarise(cfg *Config, recs ...*record.Record) *Summary {
	a := NewAccumulator(cfg)
	for _, r := range recs {
		a.Add(r, Compute(cfg, r))
	}
	return a.Summary(nil)
}
