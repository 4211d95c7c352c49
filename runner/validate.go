package runner

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/dataset/custom"
	"github.com/aiperf-go/aiperf/dataset/media"
	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/internal/secret"
	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/sink"
)

// ConfigError lists every problem found in a configuration. Each problem
// names the flag at fault and how to fix it. It is reported before any
// request is sent.
type ConfigError struct {
	Problems []string
}

func (e *ConfigError) Error() string {
	if len(e.Problems) == 1 {
		return "invalid configuration: " + e.Problems[0]
	}
	return "invalid configuration:\n  - " + strings.Join(e.Problems, "\n  - ")
}

// Valid choices of the enumerated flags.
var (
	// storeSchemes are the --artifact-dir URL schemes the aiperf command
	// opens (sink/opener registers them; cmd/aiperf's tests compare).
	storeSchemes      = []string{"file", "s3", "gs", "azblob", "mem"}
	arrivalPatterns   = []string{"constant", "poisson", "gamma", "concurrency_burst"}
	selectionStrategy = []string{"round_robin", "random"}
	exportLevels      = []string{"summary", "records", "raw"}
	outputSchemas     = []string{"1.0", "1.4"}
	uiTypes           = []string{"none", "simple", "dashboard"}
	logLevels         = []string{"TRACE", "DEBUG", "INFO", "NOTICE", "WARNING", "SUCCESS", "ERROR", "CRITICAL"}
)

// Validate checks the configuration against the reference's rules and
// returns a *ConfigError listing every problem, or nil.
func (c *Config) Validate() error {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	oneOf := func(flag, v string, valid []string) {
		for _, ok := range valid {
			if strings.EqualFold(v, ok) {
				return
			}
		}
		add("%s %q is not valid: use one of %s", flag, v, strings.Join(valid, ", "))
	}

	if len(c.Models) == 0 {
		add("--model is required: name the served model, e.g. --model Qwen/Qwen3-0.6B")
	}
	for _, m := range c.Models {
		if strings.TrimSpace(m) == "" {
			add("--model has an empty name: give comma-separated model names")
			break
		}
	}
	oneOf("--model-selection-strategy", c.ModelSelectionStrategy, selectionStrategy)
	if _, err := endpoint.Lookup(c.EndpointType); err != nil {
		add("--endpoint-type %q is not valid: use one of %s", c.EndpointType, strings.Join(endpoint.Names(), ", "))
	}
	p = append(p, c.urlProblems()...)
	p = append(p, c.awsProblems()...)
	p = append(p, c.tlsProblems()...)
	if c.EndpointPath != "" && !strings.HasPrefix(c.EndpointPath, "/") {
		add("--endpoint %q must be a path starting with '/', e.g. --endpoint /v1/chat/completions", c.EndpointPath)
	}
	p = append(p, c.templateProblems()...)
	p = append(p, c.tritonProblems()...)
	p = append(p, c.pollProblems()...)
	p = append(p, c.shardProblems()...)
	if c.RequestTimeout <= 0 {
		add("--request-timeout-seconds must be > 0")
	}
	for _, h := range c.Headers {
		if name, _, ok := strings.Cut(h, ":"); !ok || strings.TrimSpace(name) == "" {
			add("--header %q must be Name:Value, e.g. -H 'X-Tenant:blue'", secret.Header(h))
		}
	}
	for _, l := range c.Labels {
		if k, _, ok := strings.Cut(l, "="); !ok || strings.TrimSpace(k) == "" {
			add("--label %q must be key=value, e.g. --label gpu=h100", l)
		}
	}

	if c.ISLMean < 1 {
		add("--isl must be >= 1 (got %v)", c.ISLMean)
	}
	if c.ISLStddev < 0 {
		add("--isl-stddev must be >= 0 (got %v)", c.ISLStddev)
	}
	if c.OSLMean < 0 {
		add("--osl must be >= 1, or left unset for no output limit (got %v)", c.OSLMean)
	}
	if c.OSLStddev < 0 {
		add("--osl-stddev must be >= 0 (got %v)", c.OSLStddev)
	}
	if c.NumDatasetEntries < 1 {
		add("--num-dataset-entries must be >= 1 (got %d)", c.NumDatasetEntries)
	}
	if c.PromptBatchSize < 1 {
		add("--prompt-batch-size must be >= 1 (got %d)", c.PromptBatchSize)
	}

	// The values given on the command line are checked in validateLoad
	// (ConcurrencyList, RequestRateList); these, from elsewhere, only here.
	if c.Concurrency < 0 && len(c.ConcurrencyList) == 0 {
		add("--concurrency must be >= 1 (got %d)", c.Concurrency)
	}
	if c.RequestRate < 0 && len(c.RequestRateList) == 0 {
		add("--request-rate must be > 0 requests/sec (got %v)", c.RequestRate)
	}
	oneOf("--arrival-pattern", c.ArrivalPattern, arrivalPatterns)
	if c.ArrivalSmoothness != 0 && !strings.EqualFold(c.ArrivalPattern, "gamma") {
		add("--arrival-smoothness can only be used with --arrival-pattern gamma")
	}
	if c.ArrivalSmoothness < 0 {
		add("--arrival-smoothness must be > 0 (got %v)", c.ArrivalSmoothness)
	}
	// 0 is the "unset" value, so a 0 the user gave is told from it by the
	// flags set (flag, alias or env var).
	if c.RequestCount < 0 || c.RequestCount == 0 && (c.flagSet("request-count") || c.flagSet("num-requests")) {
		add("--request-count must be >= 1 (got %d): give how many requests to send, or leave it out for the default", c.RequestCount)
	}
	if c.BenchmarkDuration < 0 {
		add("--benchmark-duration must be > 0 seconds (got %v)", c.BenchmarkDuration.Seconds())
	}
	if c.GracePeriodSet && c.BenchmarkDuration <= 0 {
		add("--benchmark-grace-period can only be used with duration-based benchmarking")
	}
	if c.WarmupRequestCount < 0 {
		add("--warmup-request-count must be >= 0 (got %d)", c.WarmupRequestCount)
	}

	oneOf("--export-level", c.ExportLevel, exportLevels)
	oneOf("--output-schema", c.OutputSchema, outputSchemas)
	if c.SegmentInterval <= 0 {
		add("--segment-interval must be > 0 seconds")
	}
	if c.SegmentRecords < 1 {
		add("--segment-records must be >= 1 (got %d)", c.SegmentRecords)
	}
	if c.ArtifactDir == "" {
		add("--artifact-dir is empty: give a directory or a store URL such as s3://bucket/prefix")
	} else if scheme, _, _ := strings.Cut(c.ArtifactDir, "://"); sink.IsURL(c.ArtifactDir) && !slices.Contains(storeSchemes, strings.ToLower(scheme)) {
		add("--artifact-dir %q has an unknown store scheme %q: use a directory path or a URL with one of %s:// (e.g. s3://bucket/prefix)",
			secret.URL(c.ArtifactDir), scheme, strings.Join(storeSchemes, "://, "))
	}
	if c.UIType != "" {
		oneOf("--ui-type", c.UIType, uiTypes)
	}
	oneOf("--log-level", c.LogLevel, logLevels)
	if err := validateGoodput(c.Goodput); err != nil {
		add("--goodput: %v", err)
	}
	if err := validateExtraInputs(c.ExtraInputs); err != nil {
		add("--extra-inputs: %v", err)
	}
	p = append(p, thresholdProblems(c.Thresholds)...)

	p = append(p, c.telemetryProblems()...)
	p = append(p, c.inputProblems()...)
	p = append(p, c.scheduleProblems()...)
	p = append(p, c.loadProblems()...)
	p = append(p, c.Stability.problems()...)
	if len(p) > 0 {
		return &ConfigError{Problems: p}
	}
	return nil
}

// NormalizeURL adds "http://" when the URL has no scheme and checks that the
// result has a host.
func NormalizeURL(raw string) (*url.URL, error) {
	s := strings.TrimSpace(raw)
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("scheme %q is not http or https", u.Scheme)
	}
	if u.Host == "" {
		return nil, errors.New("no host")
	}
	return u, nil
}

func validateGoodput(spec string) error {
	_, err := metrics.ParseGoodput(spec)
	return err
}

// validateExtraInputs parses every item; an error quotes the item with its
// secrets redacted, since the parser's own message quotes it whole.
func validateExtraInputs(items []string) error {
	for _, item := range items {
		if _, err := endpoint.ParseExtraInputs([]string{item}); err != nil {
			msg := strings.ReplaceAll(err.Error(), fmt.Sprintf("%q", item), fmt.Sprintf("%q", secret.Extra(item)))
			return errors.New(msg)
		}
	}
	return nil
}

// unwrapURLError returns the error a *url.Error wraps: its own text quotes
// the URL whole, credentials included.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// StoreSchemes returns the --artifact-dir URL schemes Validate accepts.
func StoreSchemes() []string { return slices.Clone(storeSchemes) }

// NormalizeChoices rewrites every enumerated setting given in another
// spelling to its canonical one, matching as AIPerf's enums do: ignoring
// case, with '-' and '_' alike (--model-selection-strategy round-robin is
// round_robin, --image-format PNG is png), and GenAI-Perf's endpoint types
// vision and multimodal are chat. A value that matches no choice
// is left as it is, for Validate to refuse. Call it once after parsing,
// before ApplyServiceKind and Validate.
func (c *Config) NormalizeChoices() {
	for _, ch := range []struct {
		p     *string
		valid []string
	}{
		{&c.ModelSelectionStrategy, selectionStrategy}, {&c.URLStrategy, []string{urlRoundRobin}},
		{&c.EndpointType, endpoint.Names()}, {&c.ServiceKind, append(slices.Clone(serviceKinds), unsupportedServiceKinds...)},
		{&c.Backend, endpoint.Backends}, {&c.CustomDatasetType, custom.Types()}, {&c.PublicDataset, publicDatasets},
		{&c.DatasetSampling, samplingStrategies}, {&c.ArrivalPattern, arrivalPatterns}, {&c.WarmupArrivalPattern, arrivalPatterns},
		{&c.ConnectionReuse, connectionReuse}, {&c.ExportLevel, exportLevels}, {&c.UIType, uiTypes}, {&c.LogLevel, logLevels},
		{&c.ImageFormat, []string{media.ImagePNG, media.ImageJPEG, media.ImageRandom}},
		{&c.AudioFormat, []string{media.AudioWAV, media.AudioMP3, media.AudioRandom}},
		{&c.VideoSynthType, []string{media.SynthMovingShapes, media.SynthGridClock, media.SynthNoise}},
		{&c.VideoFormat, []string{media.VideoWebM, media.VideoMP4}},
	} {
		*ch.p = canonicalChoice(*ch.p, ch.valid)
	}
	for i, f := range c.ServerMetricsFormats {
		c.ServerMetricsFormats[i] = canonicalChoice(f, serverMetricsFormats)
	}
	if t, ok := genaiPerfEndpointTypes[choiceKey(c.EndpointType)]; ok {
		c.EndpointType = t
	}
}

// genaiPerfEndpointTypes are GenAI-Perf's --endpoint-type values that are
// another type here: vision and multimodal are chat completions carrying
// images or audio (the media flags add them).
var genaiPerfEndpointTypes = map[string]string{"vision": "chat", "multimodal": "chat"}

// canonicalChoice returns the choice v names ignoring case, '-' and '_',
// or v when it names none.
func canonicalChoice(v string, valid []string) string {
	key := choiceKey(v)
	for _, ok := range valid {
		if choiceKey(ok) == key {
			return ok
		}
	}
	return v
}

func choiceKey(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_")
}
