package dataset

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aiperf-go/aiperf/tokenizer"
)

// Model selection strategies of SyntheticConfig.ModelStrategy.
const (
	ModelRoundRobin = "round_robin" // turn i gets Models[i % len(Models)]
	ModelRandom     = "random"      // each turn draws a model uniformly
)

// SyntheticConfig sets up synthetic prompt generation (§4.4).
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
}

// plannedTurn is what the random streams decide for one turn, drawn in order
// before any text is built so that parallel building stays deterministic.
type plannedTurn struct {
	lengths, starts []int
	model           string
	maxTokens       int
}

// Synthetic returns cfg.NumEntries single-turn conversations with SessionIDs
// session_000000, session_000001, …. Each turn has Role "user", BatchSize
// texts cut from corpus (each of a length drawn from ISL), a Model per
// ModelStrategy, MaxTokens drawn from OSL (at least 1) when OSLMean > 0, and
// InputTokens = tok.Count of the texts joined with " "; a nil tok means the
// corpus tokenizer.
//
// The output depends only on cfg, corpus and tok: the same config gives
// identical conversations. Lengths, corpus positions, output lengths and
// models come from separate streams of the seed, so changing the OSL or the
// models leaves the prompts unchanged. Texts are built on up to GOMAXPROCS
// goroutines, which Synthetic waits for; it returns ctx's error, wrapped, if
// ctx ends first, and an error for an invalid cfg.
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

	convs := make([]Conversation, len(plan))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(plan)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(plan) {
					return
				}
				convs[i] = buildConversation(i, plan[i], corpus, tok)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("synthetic: %w", err)
	}
	return convs, nil
}

func (cfg *SyntheticConfig) validate() error {
	switch {
	case cfg.NumEntries <= 0:
		return fmt.Errorf("num entries %d: must be > 0", cfg.NumEntries)
	case cfg.ISLMean < 0 || cfg.ISLStddev < 0:
		return fmt.Errorf("isl %g, stddev %g: must be >= 0", cfg.ISLMean, cfg.ISLStddev)
	case cfg.OSLMean < 0 || cfg.OSLStddev < 0:
		return fmt.Errorf("osl %g, stddev %g: must be >= 0", cfg.OSLMean, cfg.OSLStddev)
	case cfg.BatchSize < 0:
		return fmt.Errorf("batch size %d: must be >= 0", cfg.BatchSize)
	case len(cfg.Models) == 0:
		return errors.New("no model names")
	}
	switch cfg.ModelStrategy {
	case "", ModelRoundRobin, ModelRandom:
		return nil
	default:
		return fmt.Errorf("model strategy %q: want %s or %s", cfg.ModelStrategy, ModelRoundRobin, ModelRandom)
	}
}

// plan draws every random value in a fixed order, one stream per concern.
func (cfg *SyntheticConfig) plan(corpusLen int) []plannedTurn {
	isl := deriveRand(cfg.Seed, streamISL)
	pos := deriveRand(cfg.Seed, streamCorpus)
	osl := deriveRand(cfg.Seed, streamOSL)
	pick := deriveRand(cfg.Seed, streamModel)
	batch := max(cfg.BatchSize, 1)

	plan := make([]plannedTurn, cfg.NumEntries)
	for i := range plan {
		p := &plan[i]
		p.lengths = make([]int, batch)
		p.starts = make([]int, batch)
		for b := range batch {
			p.lengths[b] = SamplePositiveNormalInt(isl, cfg.ISLMean, cfg.ISLStddev)
			p.starts[b] = pos.IntN(corpusLen)
		}
		if cfg.ModelStrategy == ModelRandom {
			p.model = cfg.Models[pick.IntN(len(cfg.Models))]
		} else {
			p.model = cfg.Models[i%len(cfg.Models)]
		}
		if cfg.OSLMean > 0 {
			// Turn.MaxTokens 0 means "none", so a draw of 0 becomes 1.
			p.maxTokens = max(1, SamplePositiveNormalInt(osl, cfg.OSLMean, cfg.OSLStddev))
		}
	}
	return plan
}

func buildConversation(i int, p plannedTurn, corpus *Corpus, tok tokenizer.Tokenizer) Conversation {
	texts := make([]string, len(p.lengths))
	count := 0
	for b := range texts {
		texts[b], count = corpus.promptAt(p.starts[b], p.lengths[b])
	}
	// One text counted by the same tokenizer needs no second count. Names,
	// not values, are compared: a fake's dynamic type may not be comparable.
	if len(texts) != 1 || tok.Name() != corpus.tok.Name() {
		count = tok.Count(strings.Join(texts, " "))
	}
	return Conversation{
		SessionID: fmt.Sprintf("session_%06d", i),
		Turns: []Turn{{
			Role:        "user",
			Texts:       texts,
			Model:       p.model,
			MaxTokens:   p.maxTokens,
			InputTokens: count,
		}},
	}
}
