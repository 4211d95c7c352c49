package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/dataset/custom"
	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/tokenizer"
)

// InputError wraps input that cannot be used (a malformed dataset file, a
// missing download, an unknown tokenizer): bad input, reported before any
// request is sent or anything is stored.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// resolveTokenizer loads --tokenizer: the model's own tokenizer by default,
// builtin for placeholder model names, a Hugging Face id or a local file.
// With --use-server-token-count and no --tokenizer, the builtin one only
// sizes the prompts.
func (r *run) resolveTokenizer(ctx context.Context) (tokenizer.Tokenizer, error) {
	name := r.cfg.Tokenizer
	if name == "" && len(r.cfg.Models) > 0 {
		name = r.cfg.Models[0]
	}
	if name == "" || tokenizer.IsPlaceholderModel(name) || (r.cfg.Tokenizer == "" && r.cfg.UseServerTokenCount) {
		name = tokenizer.BuiltinName
	}
	o := r.opts.Hub
	o.Revision, o.TrustRemoteCode = r.cfg.TokenizerRevision, r.cfg.TokenizerTrustRemoteCode
	if o.Logger == nil {
		o.Logger = r.log
	}
	tok, err := tokenizer.Load(ctx, name, o)
	if err != nil {
		return nil, &InputError{Err: fmt.Errorf("--tokenizer: %w", err)}
	}
	return tok, nil
}

// loadDataset reads the configured source: --input-file, --public-dataset,
// or synthetic prompts.
func (r *run) loadDataset(ctx context.Context, corpus *dataset.Corpus, tok tokenizer.Tokenizer) (*dataset.Dataset, error) {
	cfg := r.cfg
	switch {
	case cfg.PublicDataset != "":
		return r.loadPublic(ctx, tok)
	case cfg.InputFile != "":
		o := custom.Options{
			Path: cfg.InputFile, Type: cfg.CustomDatasetType, Corpus: corpus, Tokenizer: tok, Seed: r.seed,
			Models: cfg.Models, ModelStrategy: cfg.ModelSelectionStrategy,
			OSLMean: cfg.OSLMean, OSLStddev: cfg.OSLStddev, BlockSize: cfg.ISLBlockSize,
			NumConversations: cfg.NumSessions, BatchSize: cfg.PromptBatchSize,
			MaxISL: cfg.SynthesisMaxISL, MaxOSL: cfg.SynthesisMaxOSL, IgnoreDelays: cfg.IgnoreTraceDelays,
			Synthesis: cfg.traceSynthesis(),
		}
		if cfg.FixedScheduleStartOffsetSet {
			o.StartOffsetMS = &cfg.FixedScheduleStartOffset
		}
		if cfg.FixedScheduleEndOffsetSet {
			o.EndOffsetMS = &cfg.FixedScheduleEndOffset
		}
		return custom.Load(ctx, o)
	default:
		return r.synthetic(ctx, corpus, tok)
	}
}

// buildDataset loads the dataset, settles the sampling and the schedule it
// implies, and prebuilds the payloads.
func (r *run) buildDataset(ctx context.Context, tok tokenizer.Tokenizer) error {
	corpus, err := dataset.NewCorpus(tok)
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	d, err := r.loadDataset(ctx, corpus, tok)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return &InputError{Err: fmt.Errorf("dataset: %w", err)}
	}
	if len(d.Conversations) == 0 {
		return &InputError{Err: errors.New("dataset: no conversations: the dataset is empty (or every row was filtered out)")}
	}
	r.convs = d.Conversations
	system, err := r.cfg.systemPromptText()
	if err != nil {
		return &InputError{Err: fmt.Errorf("--system-prompt-file: %w", err)}
	}
	prependSystemPrompt(r.convs, system)
	if system != "" && !r.ep.SendsContext {
		r.log.Warn("--system-prompt: the " + r.ep.Name + " endpoint's body has no system message, so the system prompt is not sent (as in AIPerf)")
	}
	if d.Timed && !r.cfg.IgnoreTraceDelays && !r.cfg.FixedSchedule {
		if r.cfg.DatasetSampling != "" {
			return &InputError{Err: errors.New("dataset: Dataset sampling strategy is not compatible with fixed schedule mode: this trace has timestamps, which enable fixed-schedule replay; drop --dataset-sampling-strategy or pass --ignore-trace-delays")}
		}
		r.cfg.FixedSchedule = true
		r.log.Info("the dataset has timestamps: replaying them (fixed schedule)", "conversations", len(r.convs))
	}
	if r.cfg.FixedSchedule {
		r.fixed = newFixedSchedule(r)
		r.shardFixed(r.fixed)
		if len(r.fixed.order) == 0 {
			return &InputError{Err: errors.New("dataset: --fixed-schedule: the dataset has no timestamps to replay")}
		}
	}

	extra, err := endpoint.ParseExtraInputs(r.cfg.ExtraInputs)
	if err != nil {
		return fmt.Errorf("extra inputs: %w", err)
	}
	if extra, err = r.configureTemplate(extra); err != nil {
		return err
	}
	r.epOpts = &endpoint.Options{Streaming: r.cfg.Streaming, LegacyMaxTokens: r.cfg.UseLegacyMaxTokens, Backend: r.cfg.Backend, Extra: extra}
	r.storedOpts = r.epOpts
	if redacted, secret := redactFields(extra); secret {
		stored := *r.epOpts
		stored.Extra = redacted
		r.storedOpts = &stored
	}
	if err := r.prebuildPayloads(); err != nil {
		return err
	}
	strategy := r.cfg.DatasetSampling
	if strategy == "" {
		strategy = d.Sampling
	}
	if strategy == "" {
		strategy = dataset.SamplingShuffle
	}
	r.sampler, err = dataset.NewSampler(strategy, len(r.convs), r.seed^0x5eed)
	return err
}
