package dataset

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/aiperf-go/aiperf/tokenizer"
)

// Model selection strategies of SyntheticConfig.ModelStrategy.
const (
	ModelRoundRobin = "round_robin" // turn i gets Models[i % len(Models)]
	ModelRandom     = "random"      // each turn draws a model uniformly
)

// SyntheticConfig sets up synthetic prompt generation (§4.4). The zero value
// of every field after BatchSize turns its feature off.
type SyntheticConfig struct {
	// ISLMean and ISLStddev give each prompt's length in tokens
	// (--isl, --isl-stddev).
	ISLMean, ISLStddev float64
	// OSLMean and OSLStddev give each turn's max_tokens (--osl,
	// --osl-stddev). OSLMean 0 means no max_tokens.
	OSLMean, OSLStddev float64
	// NumEntries is the number of conversations (--num-dataset-entries).
	NumEntries int
	// Seed makes the output reproducible; every value, 0 included, is a
	// fixed seed (the caller picks one at random when the user gave none).
	Seed uint64
	// Models are the model names turns are assigned; at least one.
	Models []string
	// ModelStrategy is ModelRoundRobin (the default when empty) or
	// ModelRandom.
	ModelStrategy string
	// BatchSize is the number of texts per turn (--prompt-batch-size); 0
	// means 1.
	BatchSize int

	// SeqDist, when it has pairs, replaces the ISL and OSL settings
	// (--seq-dist): each turn draws one pair, every text of the turn has the
	// pair's ISL and the turn's max_tokens is its OSL.
	SeqDist SeqDist
	// NumPrefixPrompts and PrefixPromptLength build a pool of prompts of
	// that many tokens (--num-prefix-prompts, --prefix-prompt-length); each
	// text of a conversation's first turn starts with a pool entry drawn at
	// random, joined at token level, so its length is ISL + the prefix
	// length. Setting one gives the other AIPerf's default (pool 1, length
	// 128).
	NumPrefixPrompts, PrefixPromptLength int
	// SharedSystemPromptLength, when > 0, gives every conversation the same
	// synthetic system prompt of that many tokens
	// (--shared-system-prompt-length).
	SharedSystemPromptLength int
	// UserContextPromptLength, when > 0, gives each conversation its own
	// synthetic user context of that many tokens
	// (--user-context-prompt-length).
	UserContextPromptLength int
	// SystemPrompt, when not empty and SharedSystemPromptLength is 0, is
	// every conversation's system prompt, verbatim (--system-prompt).
	SystemPrompt string
	// SessionTurnsMean and SessionTurnsStddev give the turns per
	// conversation (--session-turns-mean/-stddev); fewer than 1 means 1.
	SessionTurnsMean, SessionTurnsStddev float64
	// SessionTurnDelayMean and SessionTurnDelayStddev give, in ms, the delay
	// of every turn after the first (--session-turn-delay-mean/-stddev),
	// scaled by SessionDelayRatio (--session-delay-ratio; 0 means 1, AIPerf's
	// default: a mean of 0 is the way to turn delays off).
	SessionTurnDelayMean, SessionTurnDelayStddev float64
	SessionDelayRatio                            float64
	// Rankings, when not nil, makes rankings turns (a query and passages,
	// no Texts) instead of prompts: one turn per conversation, and the ISL,
	// --seq-dist, prefix, system, user context and session settings are
	// ignored, as AIPerf's rankings generator ignores them.
	Rankings *RankingsConfig
}

// Synthetic returns cfg.NumEntries conversations with SessionIDs
// session_000000, session_000001, …, ContextMode DeltasWithoutResponses and
// SystemPrompt/UserContext as configured. Each turn has Role "user",
// BatchSize texts cut from corpus (each of a length drawn from ISL, or the
// turn's --seq-dist pair), a Model per ModelStrategy (round robin counts
// turns across conversations), MaxTokens drawn from OSL (at least 1) when
// OSLMean > 0 or from the pair, DelayMS on later turns, and InputTokens =
// tok.Count of the texts joined with " " (for rankings, the query and the
// passages joined with " "); a nil tok means the corpus tokenizer. The system
// prompt and user context are not part of InputTokens.
//
// The output depends only on cfg, corpus and tok: the same config gives
// identical conversations. Each concern (lengths, corpus positions, output
// lengths, models, turns, delays, pairs, prefixes, context prompts) draws
// from its own stream of the seed, so changing one setting leaves the others'
// draws unchanged, and a feature that is off draws nothing. Texts are built
// on up to GOMAXPROCS goroutines, which Synthetic waits for; it returns ctx's
// error, wrapped, if ctx ends first, and an error for an invalid cfg.
func Synthetic(ctx context.Context, cfg SyntheticConfig, corpus *Corpus, tok tokenizer.Tokenizer) ([]Conversation, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("synthetic: %w", err)
	}
	if corpus == nil {
		return nil, errors.New("synthetic: nil corpus")
	}
	if tok == nil {
		tok = corpus.tok
	}
	plan := cfg.plan(corpus.Len())
	b := &synthBuilder{cfg: &cfg, tok: tok, m: &textMaker{c: corpus}, system: cfg.SystemPrompt}
	if plan.tokens >= indexMinTokens {
		b.m.ix = spanIndexFor(corpus)
	}

	_, prefixLen := cfg.prefixPool()
	b.pool = make([]cutText, len(plan.poolStarts))
	forEach(ctx, len(b.pool), func(k int) { b.pool[k] = b.m.prefixEntry(plan.poolStarts[k], prefixLen) })
	if plan.shared >= 0 {
		b.system = b.m.prompt(plan.shared, cfg.SharedSystemPromptLength).text
	}
	convs := make([]Conversation, len(plan.convs))
	forEach(ctx, len(convs), func(i int) { convs[i] = b.conversation(i, &plan.convs[i]) })
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("synthetic: %w", err)
	}
	return convs, nil
}

// SyntheticDataset is Synthetic wrapped as a Dataset whose default sampling
// is SamplingShuffle, as AIPerf's for synthetic data (§4.1).
func SyntheticDataset(ctx context.Context, cfg SyntheticConfig, corpus *Corpus, tok tokenizer.Tokenizer) (*Dataset, error) {
	convs, err := Synthetic(ctx, cfg, corpus, tok)
	if err != nil {
		return nil, err
	}
	return &Dataset{Conversations: convs, Sampling: SamplingShuffle}, nil
}

func (cfg *SyntheticConfig) validate() error {
	nonNeg := []struct {
		name string
		v    float64
	}{
		{"isl", cfg.ISLMean}, {"isl stddev", cfg.ISLStddev},
		{"osl", cfg.OSLMean}, {"osl stddev", cfg.OSLStddev},
		{"batch size", float64(cfg.BatchSize)},
		{"prefix prompts", float64(cfg.NumPrefixPrompts)}, {"prefix prompt length", float64(cfg.PrefixPromptLength)},
		{"shared system prompt length", float64(cfg.SharedSystemPromptLength)},
		{"user context prompt length", float64(cfg.UserContextPromptLength)},
		{"session turns mean", cfg.SessionTurnsMean}, {"session turns stddev", cfg.SessionTurnsStddev},
		{"session turn delay mean", cfg.SessionTurnDelayMean}, {"session turn delay stddev", cfg.SessionTurnDelayStddev},
		{"session delay ratio", cfg.SessionDelayRatio},
	}
	switch {
	case cfg.NumEntries <= 0:
		return fmt.Errorf("num entries %d: must be > 0", cfg.NumEntries)
	case len(cfg.Models) == 0:
		return errors.New("no model names")
	}
	for _, v := range nonNeg {
		if !(v.v >= 0) || math.IsInf(v.v, 0) {
			return fmt.Errorf("%s %g: must be >= 0", v.name, v.v)
		}
	}
	for i, p := range cfg.SeqDist.Pairs {
		if err := checkSeqPair(p); err != nil {
			return fmt.Errorf("seq-dist pair %d: %w", i, err)
		}
	}
	if cfg.Rankings != nil {
		if err := cfg.Rankings.validate(); err != nil {
			return err
		}
	}
	switch cfg.ModelStrategy {
	case "", ModelRoundRobin, ModelRandom:
		return nil
	default:
		return fmt.Errorf("model strategy %q: want %s or %s", cfg.ModelStrategy, ModelRoundRobin, ModelRandom)
	}
}

// forEach calls fn(0) … fn(n-1) on up to GOMAXPROCS goroutines and waits for
// them; once ctx ends no further call starts.
func forEach(ctx context.Context, n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// synthBuilder turns planned conversations into Conversations; it is shared
// read-only by the building goroutines.
type synthBuilder struct {
	cfg    *SyntheticConfig
	tok    tokenizer.Tokenizer
	m      *textMaker
	pool   []cutText // prefix pool
	system string    // every conversation's system prompt
}

func (b *synthBuilder) conversation(i int, pc *plannedConv) Conversation {
	conv := Conversation{
		SessionID:   fmt.Sprintf("session_%06d", i),
		Turns:       make([]Turn, len(pc.turns)),
		ContextMode: DeltasWithoutResponses,
	}
	if b.cfg.Rankings == nil {
		conv.SystemPrompt = b.system
	}
	if pc.context >= 0 {
		conv.UserContext = b.m.prompt(pc.context, b.cfg.UserContextPromptLength).text
	}
	for t := range pc.turns {
		pt := &pc.turns[t]
		cuts := make([]cutText, len(pt.texts))
		texts := make([]string, len(pt.texts))
		for k, pl := range pt.texts {
			if pl.prefix >= 0 {
				cuts[k] = b.m.prefixed(&b.pool[pl.prefix], pl.start, pl.length)
			} else {
				cuts[k] = b.m.prompt(pl.start, pl.length)
			}
			texts[k] = cuts[k].text
		}
		turn := &conv.Turns[t]
		*turn = Turn{Role: "user", Model: pt.model, MaxTokens: pt.maxTokens, DelayMS: pt.delayMS,
			InputTokens: b.m.countJoined(cuts, b.tok)}
		if b.cfg.Rankings != nil {
			turn.Query, turn.Passages = texts[0], texts[1:]
		} else {
			turn.Texts = texts
		}
	}
	return conv
}
