package metrics

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/tokenizer"
)

// Config says which metrics apply to a run and how token counts are taken.
// It is read, never written, by Compute and the Accumulator.
type Config struct {
	// Streaming is --streaming on an endpoint that supports it.
	Streaming bool
	// ProducesTokens is true for chat and completions, false for embeddings.
	ProducesTokens bool
	// TokenizesInput is true when the endpoint's input is tokenized (ISL).
	TokenizesInput bool
	// ProducesVideo is true for video_generation: the video_* metrics
	// (PRODUCES_VIDEO_ONLY) apply.
	ProducesVideo bool
	// Tokenizer counts output and reasoning tokens. It may be nil when
	// UseServerTokenCount is set; otherwise a nil Tokenizer leaves the
	// output token metrics without values.
	Tokenizer tokenizer.Tokenizer
	// UseServerTokenCount takes ISL, output and reasoning counts from the
	// responses' usage (--use-server-token-count) and disables the
	// usage-diff metrics.
	UseServerTokenCount bool
	// Goodput holds the --goodput SLOs; none disables the goodput metrics.
	Goodput []SLO
	// HTTPTrace enables the http_req_* metrics (HTTP_TRACE_ONLY): the
	// records carry an HTTP trace (--show-trace-timing,
	// --export-http-trace, or any --output-schema 1.4 run, as in AIPerf
	// 0.13). Records without one get none of them.
	HTTPTrace bool
	// UsageDiffThresholdPct is the usage discrepancy threshold in percent
	// (AIPERF_METRICS_USAGE_PCT_DIFF_THRESHOLD); 0 means 10.
	UsageDiffThresholdPct float64
	// OSLMismatchPct and OSLMismatchMaxTokens bound the OSL mismatch
	// tolerance, min(requested*pct/100, max tokens); 0 means 5 and 50.
	OSLMismatchPct       float64
	OSLMismatchMaxTokens float64
	// Schema14 computes the metrics AIPerf 0.13 adds (--output-schema 1.4):
	// the FlagSchema14Only catalogue metrics, the sweep-line effective_*
	// and active_* metrics, effective_latency, credit_to_start_latency and
	// the error-adjusted adj_* distributions, and shows AIPerf 0.13's
	// console rows. Off, the summary is AIPerf 0.8's.
	Schema14 bool
}

// Defaults of the thresholds (AIPerf's Environment.METRICS).
const (
	DefaultUsageDiffThresholdPct = 10
	DefaultOSLMismatchPct        = 5
	DefaultOSLMismatchMaxTokens  = 50
)

func (c *Config) usageThreshold() float64 {
	return orDefault(c.UsageDiffThresholdPct, DefaultUsageDiffThresholdPct)
}

func (c *Config) oslPct() float64 { return orDefault(c.OSLMismatchPct, DefaultOSLMismatchPct) }

func (c *Config) oslMaxTokens() float64 {
	return orDefault(c.OSLMismatchMaxTokens, DefaultOSLMismatchMaxTokens)
}

func orDefault(v, d float64) float64 {
	if v == 0 {
		return d
	}
	return v
}

// Validate reports a configuration the metrics cannot honour: an SLO on a
// metric that does not apply to the run (e.g. time_to_first_token without
// streaming), or token metrics with neither a tokenizer nor server counts.
func (c *Config) Validate() error {
	var errs []error
	for _, s := range c.Goodput {
		id, ok := tagIDs[s.Tag]
		if !ok {
			//lint:ignore ST1005 AIPerf's exact message
			errs = append(errs, fmt.Errorf("Unknown metric tag(s) in --goodput: %s", s.Tag))
			continue
		}
		if !catalog[id].Enabled(c) {
			errs = append(errs, fmt.Errorf("--goodput metric %s is not applicable to this run", s.Tag))
		}
	}
	if c.ProducesTokens && c.Tokenizer == nil && !c.UseServerTokenCount {
		errs = append(errs, errors.New("metrics: a tokenizer is required unless server token counts are used"))
	}
	return errors.Join(errs...)
}

// SLO is one --goodput service level objective: a request is good only if
// its value of metric Tag is <= Threshold (>= for LARGER_IS_BETTER metrics).
type SLO struct {
	Tag string
	// Threshold is in the metric's display unit (ms for latencies).
	Threshold float64
}

// ParseGoodput parses a --goodput spec: space-separated "tag:value" pairs,
// e.g. "time_to_first_token:250 inter_token_latency:10". An empty spec
// gives no SLOs. Tags must name per-request metrics of the catalogue; a
// repeated tag keeps its last value (AIPerf parses the spec into a dict).
// Errors: "Unknown metric tag(s) in --goodput: x, y" lists every unknown
// tag; a pair without ':' or a value that is not a finite number is
// reported with the offending pair.
func ParseGoodput(spec string) ([]SLO, error) {
	var (
		slos    []SLO
		unknown []string
	)
	for _, pair := range strings.Fields(spec) {
		tag, val, ok := strings.Cut(pair, ":")
		if !ok || tag == "" || val == "" {
			return nil, fmt.Errorf("invalid --goodput pair %q: want tag:value", pair)
		}
		thr, err := strconv.ParseFloat(val, 64)
		if err != nil || math.IsNaN(thr) || math.IsInf(thr, 0) {
			return nil, fmt.Errorf("invalid --goodput value in %q: %q is not a finite number", pair, val)
		}
		id, known := tagIDs[tag]
		if !known {
			unknown = append(unknown, tag)
			continue
		}
		if d := &catalog[id]; d.Kind != KindRecord || d.list || d.Flags.Has(FlagErrorOnly) || !d.Exported() {
			return nil, fmt.Errorf("invalid --goodput metric %s: not a per-request metric", tag)
		}
		if i := indexSLO(slos, tag); i >= 0 {
			slos[i].Threshold = thr
			continue
		}
		slos = append(slos, SLO{Tag: tag, Threshold: thr})
	}
	if len(unknown) > 0 {
		//lint:ignore ST1005 AIPerf's exact message
		return nil, fmt.Errorf("Unknown metric tag(s) in --goodput: %s", strings.Join(unknown, ", "))
	}
	return slos, nil
}

func indexSLO(slos []SLO, tag string) int {
	for i := range slos {
		if slos[i].Tag == tag {
			return i
		}
	}
	return -1
}
