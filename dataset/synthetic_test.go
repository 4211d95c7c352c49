package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func synth(t testing.TB, cfg SyntheticConfig) []Conversation {
	t.Helper()
	c := builtinCorpus(t)
	convs, err := Synthetic(context.Background(), cfg, c, c.Tokenizer())
	if err != nil {
		t.Fatalf("Synthetic: %v", err)
	}
	return convs
}

func TestSyntheticShape(t *testing.T) {
	convs := synth(t, SyntheticConfig{ISLMean: 100, NumEntries: 5, Seed: 1, Models: []string{"a", "b"}})
	tok := builtinTok(t)
	if len(convs) != 5 {
		t.Fatalf("%d conversations, want 5", len(convs))
	}
	for i, c := range convs {
		if want := fmt.Sprintf("session_00000%d", i); c.SessionID != want {
			t.Errorf("SessionID %q, want %q", c.SessionID, want)
		}
		if len(c.Turns) != 1 {
			t.Fatalf("%s has %d turns, want 1", c.SessionID, len(c.Turns))
		}
		turn := c.Turns[0]
		if turn.Role != "user" || len(turn.Texts) != 1 || turn.MaxTokens != 0 || turn.DelayMS != 0 {
			t.Errorf("turn %d = %+v", i, turn)
		}
		if want := []string{"a", "b"}[i%2]; turn.Model != want {
			t.Errorf("turn %d model %q, want %q (round robin)", i, turn.Model, want)
		}
		if turn.InputTokens != 100 || tok.Count(turn.Texts[0]) != 100 {
			t.Errorf("turn %d: InputTokens %d, text counts %d; want 100", i, turn.InputTokens, tok.Count(turn.Texts[0]))
		}
	}
}

func TestSyntheticSessionIDWidth(t *testing.T) {
	convs := synth(t, SyntheticConfig{ISLMean: 1, NumEntries: 12, Models: []string{"m"}})
	if convs[0].SessionID != "session_000000" || convs[11].SessionID != "session_000011" {
		t.Errorf("ids %q … %q", convs[0].SessionID, convs[11].SessionID)
	}
}

func TestSyntheticBatch(t *testing.T) {
	tok := builtinTok(t)
	convs := synth(t, SyntheticConfig{ISLMean: 40, NumEntries: 4, Seed: 3, Models: []string{"m"}, BatchSize: 3})
	for _, c := range convs {
		turn := c.Turns[0]
		if len(turn.Texts) != 3 {
			t.Fatalf("%d texts, want 3", len(turn.Texts))
		}
		for _, text := range turn.Texts {
			if n := tok.Count(text); n != 40 {
				t.Errorf("batch text has %d tokens, want 40", n)
			}
		}
		if want := tok.Count(strings.Join(turn.Texts, " ")); turn.InputTokens != want {
			t.Errorf("InputTokens %d, want %d (joined with spaces)", turn.InputTokens, want)
		}
	}
}

func TestSyntheticOSL(t *testing.T) {
	for _, c := range synth(t, SyntheticConfig{ISLMean: 5, OSLMean: 50, NumEntries: 10, Models: []string{"m"}}) {
		if c.Turns[0].MaxTokens != 50 {
			t.Errorf("MaxTokens %d, want 50", c.Turns[0].MaxTokens)
		}
	}
	// A tiny mean with a wide spread draws zeros, which become 1.
	for _, c := range synth(t, SyntheticConfig{ISLMean: 5, OSLMean: 0.1, OSLStddev: 1, NumEntries: 50, Models: []string{"m"}}) {
		if c.Turns[0].MaxTokens < 1 {
			t.Errorf("MaxTokens %d, want >= 1", c.Turns[0].MaxTokens)
		}
	}
}

func texts(convs []Conversation) []string {
	var out []string
	for _, c := range convs {
		out = append(out, c.Turns[0].Texts...)
	}
	return out
}

func TestSyntheticDeterministic(t *testing.T) {
	cfg := SyntheticConfig{ISLMean: 200, ISLStddev: 30, OSLMean: 100, OSLStddev: 10, NumEntries: 40,
		Seed: 77, Models: []string{"x", "y", "z"}, ModelStrategy: ModelRandom, BatchSize: 2}
	a, _ := json.Marshal(synth(t, cfg))
	b, _ := json.Marshal(synth(t, cfg))
	if !bytes.Equal(a, b) {
		t.Fatal("same config gave different conversations")
	}

	other := cfg
	other.Seed = 78
	if slices.Equal(texts(synth(t, other)), texts(synth(t, cfg))) {
		t.Error("a different seed gave the same prompts")
	}

	// Output lengths and models come from their own streams.
	base := texts(synth(t, cfg))
	for name, mod := range map[string]func(*SyntheticConfig){
		"osl":      func(c *SyntheticConfig) { c.OSLMean, c.OSLStddev = 900, 300 },
		"no osl":   func(c *SyntheticConfig) { c.OSLMean = 0 },
		"models":   func(c *SyntheticConfig) { c.Models = []string{"only"} },
		"strategy": func(c *SyntheticConfig) { c.ModelStrategy = ModelRoundRobin },
	} {
		changed := cfg
		mod(&changed)
		if !slices.Equal(texts(synth(t, changed)), base) {
			t.Errorf("changing %s changed the prompts", name)
		}
	}
}

func TestSyntheticISLSpread(t *testing.T) {
	n := 300
	if raceEnabled {
		n = 100
	}
	convs := synth(t, SyntheticConfig{ISLMean: 200, ISLStddev: 40, NumEntries: n, Seed: 5, Models: []string{"m"}})
	distinct := map[int]bool{}
	sum := 0.0
	for _, c := range convs {
		distinct[c.Turns[0].InputTokens] = true
		sum += float64(c.Turns[0].InputTokens)
	}
	mean := sum / float64(n)
	// ceil(N(200, 40)) has mean 200.5; the standard error is 40/sqrt(n) <= 4.
	if math.Abs(mean-200.5) > 12 {
		t.Errorf("mean ISL %g, want 200.5 ± 12", mean)
	}
	if len(distinct) < n/4 {
		t.Errorf("only %d distinct lengths in %d prompts", len(distinct), n)
	}
}

func TestSyntheticRandomModels(t *testing.T) {
	models := []string{"a", "b", "c", "d"}
	convs := synth(t, SyntheticConfig{ISLMean: 1, NumEntries: 800, Seed: 9, Models: models, ModelStrategy: ModelRandom})
	counts := map[string]int{}
	for _, c := range convs {
		counts[c.Turns[0].Model]++
	}
	// Binomial(800, 0.25): mean 200, sd ≈ 12.
	for _, m := range models {
		if counts[m] < 150 || counts[m] > 250 {
			t.Errorf("model %s chosen %d times, want 200 ± 50", m, counts[m])
		}
	}
}

func TestSyntheticOtherTokenizer(t *testing.T) {
	w := newWordTokenizer("words-synthetic-test")
	c, err := NewCorpus(w)
	if err != nil {
		t.Fatal(err)
	}
	convs, err := Synthetic(context.Background(), SyntheticConfig{ISLMean: 12, NumEntries: 3, Models: []string{"m"}}, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, conv := range convs {
		if got := len(strings.Fields(conv.Turns[0].Texts[0])); got != 12 || conv.Turns[0].InputTokens != 12 {
			t.Errorf("%d words, InputTokens %d; want 12", got, conv.Turns[0].InputTokens)
		}
	}
}

func TestSyntheticErrors(t *testing.T) {
	c := builtinCorpus(t)
	ok := SyntheticConfig{ISLMean: 10, NumEntries: 1, Models: []string{"m"}}
	tests := []struct {
		name string
		mod  func(*SyntheticConfig)
	}{
		{"no entries", func(c *SyntheticConfig) { c.NumEntries = 0 }},
		{"negative isl", func(c *SyntheticConfig) { c.ISLMean = -1 }},
		{"negative isl stddev", func(c *SyntheticConfig) { c.ISLStddev = -1 }},
		{"negative osl", func(c *SyntheticConfig) { c.OSLMean = -1 }},
		{"negative batch", func(c *SyntheticConfig) { c.BatchSize = -1 }},
		{"no models", func(c *SyntheticConfig) { c.Models = nil }},
		{"unknown strategy", func(c *SyntheticConfig) { c.ModelStrategy = "weighted" }},
	}
	for _, tc := range tests {
		cfg := ok
		tc.mod(&cfg)
		if _, err := Synthetic(context.Background(), cfg, c, nil); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if _, err := Synthetic(context.Background(), ok, nil, nil); err == nil {
		t.Error("nil corpus: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Synthetic(ctx, ok, c, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err %v, want context.Canceled", err)
	}
}

// BenchmarkSynthetic builds 1,000 prompts of 550 tokens, AIPerf's default ISL.
func BenchmarkSynthetic(b *testing.B) {
	c := builtinCorpus(b)
	cfg := SyntheticConfig{ISLMean: 550, NumEntries: 1000, Seed: 1, Models: []string{"m"}}
	for b.Loop() {
		if _, err := Synthetic(context.Background(), cfg, c, c.Tokenizer()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cfg.NumEntries*b.N)/b.Elapsed().Seconds(), "prompts/s")
}
