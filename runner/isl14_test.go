package runner

import (
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// wordTokenizer counts whitespace-separated words, so counts are easy to
// work out by hand.
type wordTokenizer struct{}

func (wordTokenizer) Name() string             { return "words" }
func (wordTokenizer) Encode(text string) []int { return make([]int, len(strings.Fields(text))) }
func (wordTokenizer) Decode([]int) string      { return "" }
func (wordTokenizer) Count(text string) int    { return len(strings.Fields(text)) }

// TestHistoryInputSchema14 checks a later turn's input_sequence_length
// under --output-schema 1.4: AIPerf 0.13 counts the texts of every message
// sent (earlier user turns, the live replies, then the turn) joined with
// " ". Schema 1.0 keeps the turn's own count (AIPerf 0.8).
func TestHistoryInputSchema14(t *testing.T) {
	ep, err := endpoint.Lookup("chat")
	if err != nil {
		t.Fatal(err)
	}
	replies := []string{"three four", "eight"}
	for _, tc := range []struct {
		schema14    bool
		system, ctx string
		want        []int // ISL of turns 0, 1, 2
	}{
		// 1.4 by hand: "one two" = 2; "one two" + "three four" + "five" = 5;
		// those 5 + "eight" + "six seven" = 8.
		{true, "", "", []int{2, 5, 8}},
		// 1.4 with a system prompt (3 words) and a user context (1 word),
		// which every turn's body carries: each count above + 4.
		{true, "sys a b", "ctx", []int{6, 9, 12}},
		// 1.0: each turn's own words, system prompt and context left out.
		{false, "", "", []int{2, 1, 2}},
		{false, "sys a b", "ctx", []int{2, 1, 2}},
	} {
		r := &run{ep: ep, clock: record.NewClock(), mcfg: &metrics.Config{Schema14: tc.schema14, Tokenizer: wordTokenizer{}},
			convs: []dataset.Conversation{{SessionID: "s", SystemPrompt: tc.system, UserContext: tc.ctx, Turns: []dataset.Turn{
				{Texts: []string{"one two"}, InputTokens: 2},
				{Texts: []string{"five"}, InputTokens: 1},
				{Texts: []string{"six seven"}, InputTokens: 2},
			}}}}
		s := &session{conv: 0, c: &r.convs[0], turns: 3}
		for k, want := range tc.want {
			rec := &record.Record{InputTokens: s.nextTurn().InputTokens, InputText: s.historyInput(r.countsHistory(), r.ep.SendsContext)}
			countInput(r.mcfg.Tokenizer, rec)
			if rec.InputTokens != want || rec.InputText != "" {
				t.Errorf("schema14=%v system %q context %q turn %d: ISL %d (text %q), want %d", tc.schema14, tc.system, tc.ctx, k, rec.InputTokens, rec.InputText, want)
			}
			if k < len(replies) {
				rec.Responses = []record.Response{{Text: replies[k]}}
			}
			r.finishTurn(s, rec)
		}
	}
}

// TestContextCountedOnlyWhenSent: under 1.4 the system prompt and user
// context count only for endpoint types whose body carries them
// (Endpoint.SendsContext); a completions body is the turn's prompt alone,
// so its count is the turn's own.
func TestContextCountedOnlyWhenSent(t *testing.T) {
	for _, tc := range []struct {
		endpoint string
		want     int
	}{{"chat", 6}, {"messages", 6}, {"completions", 2}, {"embeddings", 2}} {
		ep, err := endpoint.Lookup(tc.endpoint)
		if err != nil {
			t.Fatal(err)
		}
		r := &run{ep: ep, mcfg: &metrics.Config{Schema14: true, Tokenizer: wordTokenizer{}},
			convs: []dataset.Conversation{{SessionID: "s", SystemPrompt: "sys a b", UserContext: "ctx",
				Turns: []dataset.Turn{{Texts: []string{"one two"}, InputTokens: 2}}}}}
		s := &session{conv: 0, c: &r.convs[0], turns: 1}
		rec := &record.Record{InputTokens: 2, InputText: s.historyInput(r.countsHistory(), r.ep.SendsContext)}
		countInput(r.mcfg.Tokenizer, rec)
		if rec.InputTokens != tc.want {
			t.Errorf("%s: ISL %d, want %d", tc.endpoint, rec.InputTokens, tc.want)
		}
	}
}
