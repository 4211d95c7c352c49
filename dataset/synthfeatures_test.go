package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestSyntheticSeqDist(t *testing.T) {
	tok := builtinTok(t)
	d, err := ParseSeqDist("60,7:50;120,9:50")
	if err != nil {
		t.Fatal(err)
	}
	convs := synth(t, SyntheticConfig{ISLMean: 999, OSLMean: 555, NumEntries: 60, Seed: 4, Models: []string{"m"}, BatchSize: 2, SeqDist: d})
	seen := map[[2]int]int{}
	for _, c := range convs {
		turn := c.Turns[0]
		n0, n1 := tok.Count(turn.Texts[0]), tok.Count(turn.Texts[1])
		if n0 != n1 {
			t.Errorf("texts of one turn have %d and %d tokens: the pair's ISL is fixed for the turn", n0, n1)
		}
		seen[[2]int{n0, turn.MaxTokens}]++
	}
	if len(seen) != 2 || seen[[2]int{60, 7}] == 0 || seen[[2]int{120, 9}] == 0 {
		t.Errorf("(ISL, max_tokens) pairs %v, want both (60,7) and (120,9) and nothing else", seen)
	}
}

func TestSyntheticSessions(t *testing.T) {
	convs := synth(t, SyntheticConfig{ISLMean: 20, NumEntries: 2, Seed: 1, Models: []string{"a", "b"},
		SessionTurnsMean: 3, SessionTurnDelayMean: 500, SessionDelayRatio: 0.5})
	wantModels := [][]string{{"a", "b", "a"}, {"b", "a", "b"}} // round robin over all turns
	for i, c := range convs {
		if len(c.Turns) != 3 {
			t.Fatalf("%s: %d turns, want 3", c.SessionID, len(c.Turns))
		}
		if c.ContextMode != DeltasWithoutResponses {
			t.Errorf("ContextMode %q", c.ContextMode)
		}
		for k, turn := range c.Turns {
			want := 250.0 // 500 ms × ratio 0.5
			if k == 0 {
				want = 0
			}
			if turn.DelayMS != want {
				t.Errorf("%s turn %d: DelayMS %g, want %g", c.SessionID, k, turn.DelayMS, want)
			}
			if turn.Model != wantModels[i][k] {
				t.Errorf("%s turn %d: model %q, want %q", c.SessionID, k, turn.Model, wantModels[i][k])
			}
			if turn.InputTokens != 20 {
				t.Errorf("%s turn %d: InputTokens %d", c.SessionID, k, turn.InputTokens)
			}
		}
	}

	// A ratio of 0 means AIPerf's default 1; a spread gives varied counts.
	convs = synth(t, SyntheticConfig{ISLMean: 1, NumEntries: 400, Seed: 2, Models: []string{"m"},
		SessionTurnsMean: 3, SessionTurnsStddev: 1, SessionTurnDelayMean: 100})
	sum, counts := 0, map[int]bool{}
	for _, c := range convs {
		sum += len(c.Turns)
		counts[len(c.Turns)] = true
		for _, turn := range c.Turns[1:] {
			if turn.DelayMS != 100 {
				t.Fatalf("DelayMS %g, want 100 (ratio 0 means 1)", turn.DelayMS)
			}
		}
	}
	// ceil(N(3,1)) given >= 0 has mean ≈ 3.5; standard error 1/√400.
	if m := float64(sum) / 400; math.Abs(m-3.5) > 0.25 {
		t.Errorf("mean turns %g, want 3.5 ± 0.25", m)
	}
	if len(counts) < 4 {
		t.Errorf("turn counts %v: want a spread", counts)
	}
}

func TestSyntheticPrefixPrompts(t *testing.T) {
	tok := builtinTok(t)
	c := builtinCorpus(t)
	cfg := SyntheticConfig{ISLMean: 100, NumEntries: 40, Seed: 8, Models: []string{"m"},
		NumPrefixPrompts: 2, PrefixPromptLength: 50, SessionTurnsMean: 2}
	convs := synth(t, cfg)
	plan := cfg.plan(c.Len())
	var pool []string
	for _, s := range plan.poolStarts {
		text, n := c.promptAt(s, 50)
		if n != 50 {
			t.Fatalf("pool prompt has %d tokens", n)
		}
		pool = append(pool, text)
	}
	used := map[int]int{}
	for _, conv := range convs {
		first, second := conv.Turns[0], conv.Turns[1]
		if first.InputTokens != 150 || tok.Count(first.Texts[0]) != 150 {
			t.Errorf("%s first turn: InputTokens %d, counts %d; want 100 + 50", conv.SessionID, first.InputTokens, tok.Count(first.Texts[0]))
		}
		k := slices.IndexFunc(pool, func(p string) bool { return strings.HasPrefix(first.Texts[0], p) })
		if k < 0 {
			t.Errorf("%s first turn does not start with a pool prompt", conv.SessionID)
		}
		used[k]++
		if second.InputTokens != 100 || slices.ContainsFunc(pool, func(p string) bool { return strings.HasPrefix(second.Texts[0], p) }) {
			t.Errorf("%s second turn: InputTokens %d or prefixed; want 100, no prefix", conv.SessionID, second.InputTokens)
		}
	}
	if used[0] == 0 || used[1] == 0 {
		t.Errorf("pool use %v: want both entries", used)
	}

	// Prefixes change only the first turns; later turns keep their text.
	plain := cfg
	plain.NumPrefixPrompts, plain.PrefixPromptLength = 0, 0
	for i, conv := range synth(t, plain) {
		if conv.Turns[1].Texts[0] != convs[i].Turns[1].Texts[0] {
			t.Fatalf("%s: prefix prompts changed the second turn", conv.SessionID)
		}
	}

	// One setting alone takes the other's default: pool 1, length 128.
	one := synth(t, SyntheticConfig{ISLMean: 10, NumEntries: 3, Seed: 8, Models: []string{"m"}, NumPrefixPrompts: 3})
	for _, conv := range one {
		if conv.Turns[0].InputTokens != 138 {
			t.Errorf("--num-prefix-prompts alone: InputTokens %d, want 10 + 128", conv.Turns[0].InputTokens)
		}
	}
	single := synth(t, SyntheticConfig{ISLMean: 10, NumEntries: 3, Seed: 8, Models: []string{"m"}, PrefixPromptLength: 20})
	for _, conv := range single {
		if conv.Turns[0].InputTokens != 30 || !strings.HasPrefix(conv.Turns[0].Texts[0], single[0].Turns[0].Texts[0][:10]) {
			t.Errorf("--prefix-prompt-length alone: InputTokens %d, want 30 from a pool of one", conv.Turns[0].InputTokens)
		}
	}
}

func TestSyntheticContextPrompts(t *testing.T) {
	tok := builtinTok(t)
	base := SyntheticConfig{ISLMean: 30, NumEntries: 6, Seed: 3, Models: []string{"m"}}
	cfg := base
	cfg.SharedSystemPromptLength, cfg.UserContextPromptLength = 40, 25
	convs := synth(t, cfg)
	contexts := map[string]bool{}
	for _, c := range convs {
		if c.SystemPrompt != convs[0].SystemPrompt || tok.Count(c.SystemPrompt) != 40 {
			t.Errorf("%s: system prompt of %d tokens, or not shared", c.SessionID, tok.Count(c.SystemPrompt))
		}
		if tok.Count(c.UserContext) != 25 {
			t.Errorf("%s: user context of %d tokens, want 25", c.SessionID, tok.Count(c.UserContext))
		}
		contexts[c.UserContext] = true
		if c.Turns[0].InputTokens != 30 {
			t.Errorf("%s: InputTokens %d: context prompts are not part of it", c.SessionID, c.Turns[0].InputTokens)
		}
	}
	if len(contexts) != len(convs) {
		t.Errorf("%d distinct user contexts for %d conversations", len(contexts), len(convs))
	}
	verbatim := base
	verbatim.SystemPrompt = "You are terse."
	for _, c := range synth(t, verbatim) {
		if c.SystemPrompt != "You are terse." || c.UserContext != "" {
			t.Errorf("SystemPrompt %q, UserContext %q", c.SystemPrompt, c.UserContext)
		}
	}
}

func TestSyntheticRankings(t *testing.T) {
	tok := builtinTok(t)
	r := DefaultRankings()
	r.PassagesMean, r.PassageTokensMean, r.QueryTokensMean = 3, 20, 10
	convs := synth(t, SyntheticConfig{ISLMean: 500, NumEntries: 5, Seed: 6, Models: []string{"m"}, Rankings: &r,
		SessionTurnsMean: 4, SharedSystemPromptLength: 30})
	for _, c := range convs {
		if len(c.Turns) != 1 || c.SystemPrompt != "" {
			t.Fatalf("%s: %d turns, system prompt %q: rankings are single-turn without one", c.SessionID, len(c.Turns), c.SystemPrompt)
		}
		turn := c.Turns[0]
		if turn.Texts != nil || tok.Count(turn.Query) != 10 || len(turn.Passages) != 3 {
			t.Fatalf("%s: texts %d, query %d tokens, %d passages", c.SessionID, len(turn.Texts), tok.Count(turn.Query), len(turn.Passages))
		}
		for _, p := range turn.Passages {
			if tok.Count(p) != 20 {
				t.Errorf("passage of %d tokens, want 20", tok.Count(p))
			}
		}
		want := tok.Count(turn.Query + " " + strings.Join(turn.Passages, " "))
		if turn.InputTokens != want || want < 66 || want > 74 {
			t.Errorf("InputTokens %d, want %d (query and passages joined with spaces, ≈ 10 + 3×20)", turn.InputTokens, want)
		}
	}
	if d := DefaultRankings(); d != (RankingsConfig{PassagesMean: 1, PassageTokensMean: 550, QueryTokensMean: 550}) {
		t.Errorf("DefaultRankings() = %+v", d)
	}
}

// TestSyntheticFeaturesOff checks that settings that do not touch the texts
// leave the prompts of a seed unchanged.
func TestSyntheticFeaturesOff(t *testing.T) {
	base := SyntheticConfig{ISLMean: 80, ISLStddev: 20, NumEntries: 20, Seed: 11, Models: []string{"m"}, BatchSize: 2}
	want := texts(synth(t, base))
	for name, mod := range map[string]func(*SyntheticConfig){
		"shared system":  func(c *SyntheticConfig) { c.SharedSystemPromptLength = 30 },
		"user context":   func(c *SyntheticConfig) { c.UserContextPromptLength = 30 },
		"system prompt":  func(c *SyntheticConfig) { c.SystemPrompt = "x" },
		"delays":         func(c *SyntheticConfig) { c.SessionTurnDelayMean, c.SessionTurnDelayStddev = 100, 10 },
		"turns stddev 0": func(c *SyntheticConfig) { c.SessionTurnsMean = 1 },
	} {
		cfg := base
		mod(&cfg)
		if !slices.Equal(texts(synth(t, cfg)), want) {
			t.Errorf("%s changed the prompts", name)
		}
	}
}

// TestSyntheticFastPathSame builds one dataset with every text feature on,
// through the span index and through the id-based fix-up, and compares them
// byte for byte; it also checks two builds of a seed are identical.
func TestSyntheticFastPathSame(t *testing.T) {
	d, _ := ParseSeqDist("200|30,20:70;600,40:30")
	cfg := SyntheticConfig{NumEntries: 30, Seed: 21, Models: []string{"a", "b"}, BatchSize: 2, SeqDist: d,
		NumPrefixPrompts: 3, PrefixPromptLength: 40, SessionTurnsMean: 2, SessionTurnsStddev: 1, SessionTurnDelayMean: 50}
	if raceEnabled {
		cfg.NumEntries = 8
	}
	build := func(minTokens int) []byte {
		t.Helper()
		old := indexMinTokens
		indexMinTokens = minTokens
		defer func() { indexMinTokens = old }()
		b, err := json.Marshal(synth(t, cfg))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	slow, fast := build(math.MaxInt), build(0)
	if !bytes.Equal(slow, fast) {
		t.Fatal("the span index and the id-based fix-up built different conversations")
	}
	if again := build(0); !bytes.Equal(again, fast) {
		t.Fatal("the same config built different conversations")
	}
}

func TestSyntheticNewErrors(t *testing.T) {
	c := builtinCorpus(t)
	ok := SyntheticConfig{ISLMean: 10, NumEntries: 1, Models: []string{"m"}}
	for name, mod := range map[string]func(*SyntheticConfig){
		"negative prefix prompts":  func(c *SyntheticConfig) { c.NumPrefixPrompts = -1 },
		"negative prefix length":   func(c *SyntheticConfig) { c.PrefixPromptLength = -1 },
		"negative shared system":   func(c *SyntheticConfig) { c.SharedSystemPromptLength = -1 },
		"negative user context":    func(c *SyntheticConfig) { c.UserContextPromptLength = -1 },
		"negative turns":           func(c *SyntheticConfig) { c.SessionTurnsMean = -1 },
		"NaN turns stddev":         func(c *SyntheticConfig) { c.SessionTurnsStddev = math.NaN() },
		"negative delay":           func(c *SyntheticConfig) { c.SessionTurnDelayMean = -1 },
		"negative ratio":           func(c *SyntheticConfig) { c.SessionDelayRatio = -0.5 },
		"bad seq pair":             func(c *SyntheticConfig) { c.SeqDist = SeqDist{Pairs: []SeqPair{{ISL: 0, OSL: 1, Prob: 100}}} },
		"negative rankings tokens": func(c *SyntheticConfig) { c.Rankings = &RankingsConfig{QueryTokensMean: -3} },
	} {
		cfg := ok
		mod(&cfg)
		if _, err := Synthetic(context.Background(), cfg, c, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestSyntheticDataset(t *testing.T) {
	c := builtinCorpus(t)
	d, err := SyntheticDataset(context.Background(), SyntheticConfig{ISLMean: 5, NumEntries: 3, Models: []string{"m"}}, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Sampling != SamplingShuffle || len(d.Conversations) != 3 || d.Timed {
		t.Errorf("dataset %+v", d)
	}
	if _, err := SyntheticDataset(context.Background(), SyntheticConfig{}, c, nil); err == nil {
		t.Error("invalid config: no error")
	}
}

func TestValidateSynthetic(t *testing.T) {
	tests := []struct {
		name string
		cfg  SyntheticConfig
		want []string // each line of the error; none for nil
	}{
		{"none", SyntheticConfig{NumPrefixPrompts: 3, PrefixPromptLength: 10, SystemPrompt: "s"}, nil},
		{"contexts only", SyntheticConfig{SharedSystemPromptLength: 10, UserContextPromptLength: 10}, nil},
		{"prefix and shared", SyntheticConfig{NumPrefixPrompts: 3, SharedSystemPromptLength: 10}, []string{
			"--num-prefix-prompts/--prefix-prompt-length cannot be used with --shared-system-prompt-length: prefix prompts and context prompts are mutually exclusive prompt modes"}},
		{"prefix and both", SyntheticConfig{PrefixPromptLength: 3, SharedSystemPromptLength: 10, UserContextPromptLength: 5}, []string{
			"--num-prefix-prompts/--prefix-prompt-length cannot be used with --shared-system-prompt-length or --user-context-prompt-length: prefix prompts and context prompts are mutually exclusive prompt modes"}},
		{"system and shared", SyntheticConfig{SystemPrompt: "s", SharedSystemPromptLength: 10}, []string{
			"--system-prompt cannot be used with --shared-system-prompt-length: give the system prompt as text or as a length, not both"}},
		{"all", SyntheticConfig{SystemPrompt: "s", SharedSystemPromptLength: 10, UserContextPromptLength: 4, NumPrefixPrompts: 1}, []string{
			"--num-prefix-prompts/--prefix-prompt-length cannot be used with --shared-system-prompt-length or --user-context-prompt-length: prefix prompts and context prompts are mutually exclusive prompt modes",
			"--system-prompt cannot be used with --shared-system-prompt-length: give the system prompt as text or as a length, not both"}},
	}
	for _, tc := range tests {
		err := ValidateSynthetic(&tc.cfg)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || err.Error() != strings.Join(tc.want, "\n") {
			t.Errorf("%s: error %v\nwant %s", tc.name, err, strings.Join(tc.want, "\n"))
		}
	}
}
