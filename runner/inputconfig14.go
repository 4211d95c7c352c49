package runner

import (
	"strings"

	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/internal/secret"
)

// inputConfig14 is input_config in AIPerf 0.13's layout (--output-schema
// 1.4): its BenchmarkConfig dumped with exclude_unset, so only what the run
// set appears. Sections 0.13 always writes (artifacts' plot switches,
// gpu_telemetry, server_metrics, network_latency and the empty otel, mlflow
// and wandb blocks) are written in its order.
type inputConfig14 struct {
	Models         models14          `json:"models"`
	Endpoint       endpoint14        `json:"endpoint"`
	Datasets       []dataset14       `json:"datasets"`
	Phases         []phase14         `json:"phases"`
	Artifacts      artifacts14       `json:"artifacts"`
	Tokenizer      map[string]string `json:"tokenizer"`
	Goodput        string            `json:"goodput,omitempty"`
	GPUTelemetry   gpuTelemetry14    `json:"gpu_telemetry"`
	ServerMetrics  enabled14         `json:"server_metrics"`
	NetworkLatency enabled14         `json:"network_latency"`
	OTel           struct{}          `json:"otel"`
	MLflow         struct{}          `json:"mlflow"`
	WandB          struct{}          `json:"wandb"`
	Runtime        map[string]string `json:"runtime"`
}

type models14 struct {
	Items    []map[string]string `json:"items"`
	Strategy string              `json:"strategy,omitempty"`
}

type endpoint14 struct {
	URLs        []string `json:"urls"`
	URLStrategy string   `json:"url_strategy,omitempty"`
	Type        string   `json:"type"`
	Path        string   `json:"path,omitempty"`
	Streaming   bool     `json:"streaming,omitempty"`
	APIKey      string   `json:"api_key,omitempty"`
	Headers     []string `json:"headers,omitempty"`
	ExtraInputs []string `json:"extra,omitempty"`
}

type dataset14 struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Entries    int            `json:"entries,omitempty"`
	RandomSeed uint64         `json:"random_seed"`
	Prompts    map[string]any `json:"prompts"`
	// PrefixPrompts is written only when a prefix or context prompt is set.
	PrefixPrompts *prefixPrompts14 `json:"prefix_prompts,omitempty"`
	// Turns, TurnDelay (ms) and TurnDelayRatio are the session settings of
	// a multi-turn run, written as 0.13 writes them: only when set, a
	// mean/stddev pair whole.
	Turns          *meanStddev14 `json:"turns,omitempty"`
	TurnDelay      *meanStddev14 `json:"turn_delay,omitempty"`
	TurnDelayRatio float64       `json:"turn_delay_ratio,omitempty"`
}

// prefixPrompts14 is 0.13's prefix_prompts of a synthetic dataset: the
// prefix pool (--num-prefix-prompts, --prefix-prompt-length) or the
// context prompts (--shared-system-prompt-length,
// --user-context-prompt-length), each member only when set.
type prefixPrompts14 struct {
	PoolSize           int `json:"pool_size,omitempty"`
	Length             int `json:"length,omitempty"`
	SharedSystemLength int `json:"shared_system_length,omitempty"`
	UserContextLength  int `json:"user_context_length,omitempty"`
}

// meanStddev14 is 0.13's distribution of a dataset setting; both members
// are written (0.13 fills the one not given with its default).
type meanStddev14 struct {
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
}

type phase14 struct {
	Name              string  `json:"name"`
	Kind              string  `json:"kind"`
	Type              string  `json:"type"`
	Requests          int     `json:"requests,omitempty"`
	Sessions          int     `json:"sessions,omitempty"`
	DurationSeconds   float64 `json:"duration,omitempty"`
	GracePeriod       float64 `json:"grace_period,omitempty"`
	Concurrency       int     `json:"concurrency,omitempty"`
	Rate              float64 `json:"rate,omitempty"`
	ArrivalPattern    string  `json:"arrival_pattern,omitempty"`
	ArrivalSmoothness float64 `json:"arrival_smoothness,omitempty"`
}

type artifacts14 struct {
	Dir    string `json:"dir"`
	Prefix string `json:"prefix,omitempty"`
	// SliceDuration is --slice-duration in seconds; 0.13 writes it only
	// when set.
	SliceDuration float64 `json:"slice_duration,omitempty"`
	AutoPlot      bool    `json:"auto_plot"`
	PlotRequired  bool    `json:"plot_required"`
}

type enabled14 struct {
	Enabled bool `json:"enabled"`
}

// gpuTelemetry14 is 0.13's gpu_telemetry section: {"enabled": …} alone
// unless --gpu-telemetry names items, when 0.13 writes the URLs it was
// given (with "http://" when they lack a scheme), the collector ("dcgm", or
// "pynvml" for nvml/pynvml) and the mode ("summary", or
// "realtime_dashboard" for dashboard). Credentials in a URL are redacted.
type gpuTelemetry14 struct {
	Enabled   bool      `json:"enabled"`
	URLs      *[]string `json:"urls,omitempty"`
	Collector string    `json:"collector,omitempty"`
	Mode      string    `json:"mode,omitempty"`
}

// newGPUTelemetry14 describes c's GPU telemetry as 0.13's
// build_gpu_telemetry does.
func newGPUTelemetry14(c *Config) gpuTelemetry14 {
	g := gpuTelemetry14{Enabled: !c.NoGPUTelemetry}
	var items []string
	for _, item := range c.GPUTelemetry {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	if c.NoGPUTelemetry || len(items) == 0 {
		return g
	}
	urls := []string{}
	g.Collector, g.Mode = "dcgm", "summary"
	for _, item := range items {
		switch lower := strings.ToLower(item); {
		case lower == "nvml" || lower == "pynvml":
			g.Collector = "pynvml"
		case lower == "dashboard":
			g.Mode = "realtime_dashboard"
		case strings.HasPrefix(item, "http"):
			urls = append(urls, secret.URL(item))
		case strings.Contains(item, ":"):
			urls = append(urls, secret.URL("http://"+item))
		}
	}
	g.URLs = &urls
	return g
}

// schema14 fills info's AIPerf 0.13 parts: the layout, run_info and
// input_config in 0.13's shape.
func (r *run) schema14(info *export.RunInfo, specs []*phaseSpec) {
	info.SchemaVersion = export.Schema14
	seed := r.seed
	info.Run = export.RunIdentity{RandomSeed: &seed}
	info.InputConfig = r.buildInputConfig14(specs)
}

// buildInputConfig14 describes the effective, redacted configuration in
// 0.13's layout; defaults are left out where 0.13 leaves them unset.
func (r *run) buildInputConfig14(specs []*phaseSpec) *inputConfig14 {
	c := r.cfg.Redact()
	ic := &inputConfig14{
		Models: models14{},
		Endpoint: endpoint14{URLs: c.BaseURLs(), Type: c.EndpointType, Path: c.EndpointPath, Streaming: c.Streaming,
			APIKey: c.APIKey, Headers: c.Headers, ExtraInputs: c.ExtraInputs},
		Artifacts: artifacts14{Dir: ArtifactDir(&c), Prefix: c.ProfileExportPrefix,
			SliceDuration: c.SliceDuration.Seconds()},
		Tokenizer:      map[string]string{"name": "builtin"},
		Goodput:        c.Goodput,
		GPUTelemetry:   newGPUTelemetry14(&c),
		ServerMetrics:  enabled14{!c.NoServerMetrics || len(c.ServerMetrics) > 0},
		NetworkLatency: enabled14{},
		Runtime:        map[string]string{"ui": r.uiType()},
	}
	if len(c.BaseURLs()) > 1 {
		ic.Endpoint.URLStrategy = c.URLStrategy
	}
	if len(c.Models) > 1 {
		ic.Models.Strategy = c.ModelSelectionStrategy
	}
	for _, m := range c.Models {
		ic.Models.Items = append(ic.Models.Items, map[string]string{"name": m})
	}
	isl := map[string]float64{"mean": c.ISLMean}
	if c.ISLStddev > 0 {
		isl["stddev"] = c.ISLStddev
	}
	prompts := map[string]any{"isl": isl}
	if c.PromptBatchSize > 1 {
		prompts["batch_size"] = c.PromptBatchSize
	}
	if c.OSLMean > 0 {
		osl := map[string]float64{"mean": c.OSLMean}
		if c.OSLStddev > 0 {
			osl["stddev"] = c.OSLStddev
		}
		prompts["osl"] = osl
	}
	ds := dataset14{Name: "main", Type: "synthetic", Entries: c.NumDatasetEntries, RandomSeed: r.seed, Prompts: prompts}
	if pp := (prefixPrompts14{c.NumPrefixPrompts, c.PrefixPromptLength, c.SharedSystemPromptLength, c.UserContextPromptLength}); pp != (prefixPrompts14{}) {
		ds.PrefixPrompts = &pp
	}
	if c.SessionTurnsMean != 1 || c.SessionTurnsStddev != 0 {
		ds.Turns = &meanStddev14{c.SessionTurnsMean, c.SessionTurnsStddev}
	}
	if c.SessionTurnDelayMean != 0 || c.SessionTurnDelayStddev != 0 {
		ds.TurnDelay = &meanStddev14{c.SessionTurnDelayMean, c.SessionTurnDelayStddev}
	}
	if c.SessionDelayRatio != 1 {
		ds.TurnDelayRatio = c.SessionDelayRatio
	}
	ic.Datasets = []dataset14{ds}
	for _, s := range specs {
		pc := phase14{Name: string(s.phase), Kind: string(s.phase), Type: string(c.Mode()), Requests: max(s.count, 0),
			Sessions:        max(s.sessions, 0),
			DurationSeconds: s.duration.Seconds(), Concurrency: s.concurrency, Rate: s.rate}
		if s.duration > 0 && s.grace >= 0 {
			pc.GracePeriod = s.grace.Seconds()
		}
		if s.rate > 0 {
			pc.ArrivalPattern, pc.ArrivalSmoothness = c.ArrivalPattern, c.ArrivalSmoothness
		}
		ic.Phases = append(ic.Phases, pc)
	}
	return ic
}
