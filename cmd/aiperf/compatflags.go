package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/peterbourgon/ff/v4"
	"github.com/peterbourgon/ff/v4/ffval"

	"github.com/aiperf-go/aiperf/runner"
)

// The compatibility flags are the flags of AIPerf 0.13 and GenAI-Perf that
// aiperf accepts so that their command lines run unchanged, but that either
// map onto other settings once every flag is parsed (applyCompat), or have
// no meaning in aiperf's design (one process, no services, no message bus):
// those are accepted with one warning each, naming what aiperf does instead
// (compatWarnings; see docs/cli.md). Their state is the flag set's: a flag
// is read back by name, so that the flag set stays the one thing parsed.

// ignoredFlags are the flags of AIPerf's service architecture and
// GenAI-Perf's checkpointing, with what aiperf does instead. A bool flag
// takes no value.
var ignoredFlags = []struct {
	name, instead string
	isBool        bool
}{
	{"workers-max", "aiperf sends every request from one process, whose goroutines grow with --concurrency or --request-rate: there is no worker pool to size", false},
	{"max-workers", "aiperf sends every request from one process, whose goroutines grow with --concurrency or --request-rate: there is no worker pool to size", false},
	{"record-processor-service-count", "aiperf computes each record's metrics in the sending process (one worker per CPU): there are no record-processor services", false},
	{"record-processors", "aiperf computes each record's metrics in the sending process (one worker per CPU): there are no record-processor services", false},
	{"zmq-host", "aiperf is one process and has no ZMQ message bus", false},
	{"zmq-ipc-path", "aiperf is one process and has no ZMQ message bus", false},
	{"zmq-dual-bind", "aiperf is one process and has no ZMQ message bus", true},
	{"transport", "aiperf always speaks HTTP/1.1 (its own transport; the --url scheme picks http or https, TLS for https)", false},
	{"transport-type", "aiperf always speaks HTTP/1.1 (its own transport; the --url scheme picks http or https, TLS for https)", false},
	{"api-host", "aiperf serves no live API: --ui-type dashboard shows the run as it goes, and the records stream to --artifact-dir", false},
	{"api-port", "aiperf serves no live API: --ui-type dashboard shows the run as it goes, and the records stream to --artifact-dir", false},
	{"stats-interval", "aiperf's console refreshes the live metrics on its own (--ui-type simple or dashboard), and the log file has them at the end", false},
	{"plot-required", "the runner draws no plots, so none can fail (aiperf-report plot draws them)", true},
	{"enable-checkpointing", "aiperf keeps no checkpoints: an interrupted run leaves its records in the spool (--spool-dir), and aiperf recover writes its artifacts", true},
	{"checkpoint-dir", "aiperf keeps no checkpoints: an interrupted run leaves its records in the spool (--spool-dir), and aiperf recover writes its artifacts", false},
}

// addCompatFlags registers the compatibility flags in g, bound to cfg and
// verbose.
func addCompatFlags(g flagGroup, cfg *runner.Config, verbose *int) {
	var deterministic, plots, noPlot bool
	g.add(0, "extra-verbose", extraVerbose{verbose}, "trace logging, as -vv (AIPerf's --extra-verbose)")
	g.add('p', "measurement-interval", positiveMS{&cfg.Stability.Interval}, "Perf Analyzer's stability mode: measure in windows of `MS` until the last three agree within --stability-percentage, then stop and report those windows (GenAI-Perf; default 10000 when only -s is given)")
	g.add('s', "stability-percentage", finiteFloat{&cfg.Stability.Percentage}, "stability mode: the allowed spread in `PERCENT` (max/min - 1) of the throughput and of the average latency over the last three windows (GenAI-Perf; default 999 when only -p is given)")
	g.add(0, "output-tokens-mean-deterministic", ffval.NewValueDefault(&deterministic, false), "pin the output length to --osl: sends min_tokens and ignore_eos (chat, completions), min_length (kserve tensorrtllm) or sampling_parameters' min_tokens (kserve vllm) (GenAI-Perf)")
	g.add(0, "generate-plots", ffval.NewValueDefault(&plots, false), "print the aiperf-report plot command line for the run: the runner draws no plots, they need DuckDB (GenAI-Perf; AIPerf: --auto-plot)", "auto-plot")
	g.add(0, "no-auto-plot", ffval.NewValueDefault(&noPlot, false), "draw no plots: what aiperf does anyway (AIPerf 0.13)")
	g.add(0, "no-set-consistent-seed", negBool{&cfg.SetConsistentSeed}, "turn --set-consistent-seed off (AIPerf 0.13)")
	g.add(0, "no-profile-run-disable-warmup-after-first", negBool{&cfg.ProfileRunDisableWarmupAfterFirst}, "turn --profile-run-disable-warmup-after-first off: warm up before every profile run (AIPerf 0.13)")
	for _, f := range ignoredFlags {
		var v flag.Value = ffval.NewValueDefault(new(string), "")
		if f.isBool {
			v = ffval.NewValueDefault(new(bool), false)
		}
		g.add(0, f.name, v, "accepted and ignored: "+f.instead)
	}
}

// flagOn reports whether the bool flag name of fs is set to true.
func flagOn(fs *ff.FlagSet, name string) bool {
	f, ok := fs.GetFlag(name)
	return ok && f.GetValue() == "true"
}

// applyCompat applies the compatibility flags once every flag is parsed
// (set names the flags given, long names). Call it after ApplyServiceKind
// and before Validate.
func applyCompat(cfg *runner.Config, fs *ff.FlagSet, set map[string]bool) error {
	if set["measurement-interval"] || set["stability-percentage"] {
		if !set["measurement-interval"] {
			cfg.Stability.Interval = runner.DefaultMeasurementInterval
		}
		if !set["stability-percentage"] {
			cfg.Stability.Percentage = runner.DefaultStabilityPercentage
		}
	}
	if !flagOn(fs, "output-tokens-mean-deterministic") {
		return nil
	}
	if cfg.OSLMean <= 0 {
		return errors.New("--output-tokens-mean-deterministic needs --output-tokens-mean (--osl): give the output length to pin, e.g. --osl 256")
	}
	extra := pinnedLengthInputs(cfg)
	for _, e := range extra {
		key, _, _ := strings.Cut(e, ":")
		if !slices.ContainsFunc(cfg.ExtraInputs, func(s string) bool { return strings.HasPrefix(s, key+":") }) {
			cfg.ExtraInputs = append(cfg.ExtraInputs, e)
		}
	}
	return nil
}

// pinnedLengthInputs are the --extra-inputs of GenAI-Perf's
// --output-tokens-mean-deterministic for cfg's endpoint: the fields its
// server reads as a minimum output length, set to --osl; none when the
// lengths vary (--osl-stddev) or the endpoint has no such field.
func pinnedLengthInputs(cfg *runner.Config) []string {
	if cfg.OSLStddev > 0 {
		return nil
	}
	n := strconv.Itoa(int(math.Round(cfg.OSLMean)))
	switch strings.ToLower(cfg.EndpointType) {
	case "chat", "completions":
		return []string{"min_tokens:" + n, "ignore_eos:true"}
	case "kserve":
		if cfg.Backend == "vllm" {
			return []string{"sampling_parameters:" + strconv.Quote(`{"max_tokens":"`+n+`","min_tokens":"`+n+`"}`)}
		}
		return []string{"min_length:" + n}
	}
	return nil
}

// compatWarnings returns the warnings of the compatibility flags set in
// fs, one per flag, for the valid configuration cfg.
func compatWarnings(cfg *runner.Config, fs *ff.FlagSet) []string {
	var out []string
	if flagOn(fs, "generate-plots") || flagOn(fs, "auto-plot") {
		out = append(out, "--generate-plots: the runner draws no plots (they need DuckDB, which it leaves out); after the run: "+
			plotEquivalent([]string{runner.ArtifactDir(cfg)}, "", ""))
	}
	if flagOn(fs, "output-tokens-mean-deterministic") && len(pinnedLengthInputs(cfg)) == 0 {
		if cfg.OSLStddev > 0 {
			out = append(out, fmt.Sprintf("--output-tokens-mean-deterministic: the output lengths vary (--osl-stddev %v), so no minimum is pinned; give --osl-stddev 0 to pin every request to --osl", cfg.OSLStddev))
		} else {
			out = append(out, fmt.Sprintf("--output-tokens-mean-deterministic has no effect with --endpoint-type %s: pass the field its server reads with --extra-inputs", cfg.EndpointType))
		}
	}
	for _, f := range ignoredFlags {
		if g, ok := fs.GetFlag(f.name); ok && g.IsSet() {
			out = append(out, "--"+f.name+" is accepted and ignored: "+f.instead)
		}
	}
	return out
}
