package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/dataset/media"
	"github.com/aiperf-go/aiperf/dataset/public"
	"github.com/aiperf-go/aiperf/tokenizer"
)

// syntheticConfig maps the synthetic flags onto the generator's config.
func (c *Config) syntheticConfig(seed uint64) (dataset.SyntheticConfig, error) {
	sc := dataset.SyntheticConfig{
		ISLMean: c.ISLMean, ISLStddev: c.ISLStddev,
		OSLMean: c.OSLMean, OSLStddev: c.OSLStddev,
		NumEntries: c.NumDatasetEntries, Seed: seed,
		Models: c.Models, ModelStrategy: c.ModelSelectionStrategy,
		BatchSize:        c.PromptBatchSize,
		NumPrefixPrompts: c.NumPrefixPrompts, PrefixPromptLength: c.PrefixPromptLength,
		SharedSystemPromptLength: c.SharedSystemPromptLength,
		UserContextPromptLength:  c.UserContextPromptLength,
		SessionTurnsMean:         c.SessionTurnsMean, SessionTurnsStddev: c.SessionTurnsStddev,
		SessionTurnDelayMean: c.SessionTurnDelayMean, SessionTurnDelayStddev: c.SessionTurnDelayStddev,
		SessionDelayRatio: c.SessionDelayRatio,
	}
	if c.SeqDist != "" {
		sd, err := dataset.ParseSeqDist(c.SeqDist)
		if err != nil {
			return sc, fmt.Errorf("--seq-dist: %w", err)
		}
		sc.SeqDist = sd
	}
	if strings.HasSuffix(c.EndpointType, "rankings") {
		sc.Rankings = &dataset.RankingsConfig{
			PassagesMean: c.RankingsPassagesMean, PassagesStddev: c.RankingsPassagesStddev,
			PassageTokensMean: c.RankingsPassageTokensMean, PassageTokensStddev: c.RankingsPassageTokensStddev,
			QueryTokensMean: c.RankingsQueryTokensMean, QueryTokensStddev: c.RankingsQueryTokensStddev,
		}
	}
	return sc, nil
}

// mediaConfig maps the multimodal flags onto the media generator's config.
func (c *Config) mediaConfig() media.Config {
	m := media.DefaultConfig()
	m.Image = media.ImageConfig{WidthMean: c.ImageWidthMean, WidthStddev: c.ImageWidthStddev,
		HeightMean: c.ImageHeightMean, HeightStddev: c.ImageHeightStddev, Format: c.ImageFormat, BatchSize: c.ImageBatchSize}
	m.Audio = media.AudioConfig{LengthMean: c.AudioLengthMean, LengthStddev: c.AudioLengthStddev, Format: c.AudioFormat,
		SampleRates: c.AudioSampleRates, Depths: c.AudioDepths, NumChannels: c.AudioNumChannels, BatchSize: c.AudioBatchSize}
	m.Video = media.VideoConfig{Width: c.VideoWidth, Height: c.VideoHeight, FPS: c.VideoFPS, Duration: c.VideoDuration,
		SynthType: c.VideoSynthType, Codec: c.VideoCodec, Format: c.VideoFormat, AudioChannels: c.VideoAudioNumChannels, BatchSize: c.VideoBatchSize}
	return m
}

// synthetic builds the synthetic dataset (§4.4) and its multimodal inputs
// (§4.5), drawn from their own seeded stream so that turning media on
// leaves the prompts unchanged.
func (r *run) synthetic(ctx context.Context, corpus *dataset.Corpus, tok tokenizer.Tokenizer) (*dataset.Dataset, error) {
	sc, err := r.cfg.syntheticConfig(r.seed)
	if err != nil {
		return nil, err
	}
	d, err := dataset.SyntheticDataset(ctx, sc, corpus, tok)
	if err != nil {
		return nil, err
	}
	mc := r.cfg.mediaConfig()
	if !mc.Image.Enabled() && !mc.Audio.Enabled() && !mc.Video.Enabled() {
		return d, nil
	}
	gen, err := media.New(mc)
	if err != nil {
		return nil, err
	}
	rng := dataset.NewRand(r.seed, "media")
	for i := range d.Conversations {
		for t := range d.Conversations[i].Turns {
			turn := &d.Conversations[i].Turns[t]
			if turn.Images, turn.Audios, turn.Videos, err = gen.Turn(ctx, rng); err != nil {
				return nil, fmt.Errorf("media for %s: %w", d.Conversations[i].SessionID, err)
			}
		}
	}
	return d, nil
}

// loadPublic reads --public-dataset: a local copy given with --input-file,
// else the cached download (fetched once when online).
func (r *run) loadPublic(ctx context.Context, tok tokenizer.Tokenizer) (*dataset.Dataset, error) {
	cfg := r.cfg
	o := public.ShareGPTOptions{
		Path: cfg.InputFile, CacheDir: r.opts.CacheDir, Offline: r.opts.Hub.Offline, Client: r.opts.Hub.Client,
		Tokenizer: tok, Models: cfg.Models, ModelStrategy: cfg.ModelSelectionStrategy, Seed: r.seed,
		OSLSet: cfg.OSLMean > 0,
	}
	if cfg.NumDatasetEntriesSet {
		o.NumEntries = cfg.NumDatasetEntries
	}
	var stats public.ShareGPTStats
	o.Stats = &stats
	d, err := public.LoadShareGPT(ctx, o)
	if err != nil {
		return nil, err
	}
	r.log.Info("public dataset loaded", "dataset", cfg.PublicDataset, "conversations", len(d.Conversations), "stats", fmt.Sprintf("%+v", stats))
	return d, nil
}
