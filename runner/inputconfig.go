package runner

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/metrics"
)

// inputConfig is the effective configuration written as input_config, in the
// shape of AIPerf's (models, endpoint, datasets, phases, artifacts, ...).
// Secrets are redacted before it is built.
type inputConfig struct {
	Models     modelsConfig      `json:"models"`
	Endpoint   endpointConfig    `json:"endpoint"`
	Datasets   []datasetConfig   `json:"datasets"`
	Phases     []phaseConfig     `json:"phases"`
	Artifacts  artifactsConfig   `json:"artifacts"`
	Tokenizer  map[string]string `json:"tokenizer"`
	Goodput    string            `json:"goodput,omitempty"`
	Runtime    map[string]string `json:"runtime"`
	RandomSeed uint64            `json:"random_seed"`
	// FailureWindowSeconds is --failure-window (0: off).
	FailureWindowSeconds float64 `json:"failure_window"`
}

type modelsConfig struct {
	Items    []map[string]string `json:"items"`
	Strategy string              `json:"strategy"`
}

type endpointConfig struct {
	URLs                []string `json:"urls"`
	URLStrategy         string   `json:"url_strategy"`
	Type                string   `json:"type"`
	Path                string   `json:"path,omitempty"`
	Streaming           bool     `json:"streaming"`
	TimeoutSeconds      float64  `json:"timeout"`
	APIKey              string   `json:"api_key,omitempty"`
	Headers             []string `json:"headers,omitempty"`
	ExtraInputs         []string `json:"extra,omitempty"`
	UseLegacyMaxTokens  bool     `json:"use_legacy_max_tokens"`
	UseServerTokenCount bool     `json:"use_server_token_count"`
	ServiceKind         string   `json:"service_kind,omitempty"` // GenAI-Perf's --service-kind
	Backend             string   `json:"backend,omitempty"`      // kserve's Triton backend
}

type datasetConfig struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Entries    int            `json:"entries"`
	RandomSeed uint64         `json:"random_seed"`
	Prompts    map[string]any `json:"prompts"`
}

type phaseConfig struct {
	Name              string  `json:"name"`
	Type              string  `json:"type"`
	Requests          int     `json:"requests,omitempty"`
	DurationSeconds   float64 `json:"duration,omitempty"`
	GracePeriod       float64 `json:"grace_period,omitempty"`
	Concurrency       int     `json:"concurrency,omitempty"`
	Rate              float64 `json:"rate,omitempty"`
	ArrivalPattern    string  `json:"arrival_pattern,omitempty"`
	ArrivalSmoothness float64 `json:"arrival_smoothness,omitempty"`
}

type artifactsConfig struct {
	Dir         string `json:"dir"`
	ExportLevel string `json:"export_level"`
	Prefix      string `json:"prefix,omitempty"`
	CLICommand  string `json:"cli_command"`

	SegmentIntervalSeconds float64 `json:"segment_interval"`
	SegmentRecords         int     `json:"segment_records"`
	UploadGraceSeconds     float64 `json:"upload_grace_period"`
	ShutdownGraceSeconds   float64 `json:"shutdown_grace"`
}

// buildInputConfig describes the effective, redacted configuration.
func (r *run) buildInputConfig(specs []*phaseSpec) *inputConfig {
	c := r.cfg.Redact()
	ic := &inputConfig{
		Models: modelsConfig{Strategy: c.ModelSelectionStrategy},
		Endpoint: endpointConfig{
			URLs: c.BaseURLs(), URLStrategy: c.URLStrategy, Type: c.EndpointType, Path: c.EndpointPath, Streaming: c.Streaming,
			TimeoutSeconds: c.RequestTimeout.Seconds(), APIKey: c.APIKey, Headers: c.Headers, ExtraInputs: c.ExtraInputs,
			UseLegacyMaxTokens: c.UseLegacyMaxTokens, UseServerTokenCount: c.UseServerTokenCount,
			ServiceKind: c.ServiceKind, Backend: c.Backend,
		},
		Artifacts: artifactsConfig{Dir: ArtifactDir(&c), ExportLevel: c.ExportLevel, Prefix: c.ProfileExportPrefix, CLICommand: c.CLICommand,
			SegmentIntervalSeconds: c.SegmentInterval.Seconds(), SegmentRecords: c.SegmentRecords,
			UploadGraceSeconds: c.UploadGrace.Seconds(), ShutdownGraceSeconds: c.ShutdownGrace.Seconds()},
		Tokenizer:  map[string]string{"name": "builtin"},
		Goodput:    c.Goodput,
		Runtime:    map[string]string{"ui": r.uiType()},
		RandomSeed: r.seed,

		FailureWindowSeconds: c.FailureWindow.Seconds(),
	}
	for _, m := range c.Models {
		ic.Models.Items = append(ic.Models.Items, map[string]string{"name": m})
	}
	prompts := map[string]any{"isl": map[string]float64{"mean": c.ISLMean, "stddev": c.ISLStddev}, "batch_size": c.PromptBatchSize}
	if c.OSLMean > 0 {
		prompts["osl"] = map[string]float64{"mean": c.OSLMean, "stddev": c.OSLStddev}
	}
	ic.Datasets = []datasetConfig{{Name: "main", Type: "synthetic", Entries: c.NumDatasetEntries, RandomSeed: r.seed, Prompts: prompts}}
	for _, s := range specs {
		pc := phaseConfig{Name: string(s.phase), Type: string(c.Mode()), Requests: max(s.count, 0),
			DurationSeconds: s.duration.Seconds(), Concurrency: s.concurrency, Rate: s.rate}
		if s.duration > 0 {
			pc.GracePeriod = s.grace.Seconds()
		}
		if s.rate > 0 {
			pc.ArrivalPattern, pc.ArrivalSmoothness = c.ArrivalPattern, c.ArrivalSmoothness
		}
		ic.Phases = append(ic.Phases, pc)
	}
	return ic
}

// runInfo is the export metadata of the finished run.
func (r *run) runInfo(ep *endpoint.Endpoint, s *metrics.Summary, specs []*phaseSpec, cancelled bool) *export.RunInfo {
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	info := &export.RunInfo{
		AIPerfVersion: r.opts.Version,
		BenchmarkID:   hex.EncodeToString(id),
		InputConfig:   r.buildInputConfig(specs),
		CLICommand:    r.cfg.CLICommand,
		WasCancelled:  cancelled,
		Title:         ep.Title,
	}
	if r.cfg.OutputSchema == export.Schema14 {
		r.schema14(info, specs)
	}
	if s.StartWallNS == 0 {
		info.Start = r.clock.Origin()
		info.End = time.Now()
	}
	return info
}
