package multirun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/runner"
)

// AnalyzeSummaryName is GenAI-Perf analyze's summary CSV, at the top of
// the artifact directory (GenAI-Perf writes it to the working directory).
const AnalyzeSummaryName = "analyze_export_genai_perf.csv"

// analyzeColumns are the metric columns of GenAI-Perf's analyze summary.
var analyzeColumns = []sweepColumn{
	{"time_to_first_token", "p99", "p99 Time To First Token (ms)", "TTFT p99"},
	{"inter_token_latency", "p99", "p99 Inter Token Latency (ms)", "ITL p99"},
	{"request_latency", "p99", "p99 Request Latency (ms)", "latency p99"},
	{"output_sequence_length", "p99", "p99 Output Sequence Length (tokens)", "OSL p99"},
	{"output_token_throughput", "avg", "Avg. Output Token Throughput (tokens/sec)", "tok/s"},
	{"request_throughput", "avg", "Request Throughput (requests/sec)", "req/s"},
}

// analyzeGPUHeader is the header of the summary's second table, GPU
// telemetry per scenario, which GenAI-Perf writes even with no GPU rows.
var analyzeGPUHeader = []string{"Config Name", "GPU", "p99 GPU Power Usage (W)", "p99 GPU Energy Consumption (MJ)",
	"p99 GPU Utilization (%)", "p99 GPU Memory Used (GB)", "Avg. GPU Power Limit (W)", "Avg. GPU Total Memory (GB)"}

// Analyze runs the sweep of `aiperf analyze` (GenAI-Perf's analyze
// subcommand; cfg.AnalyzeSweepType names the swept setting) with GenAI-
// Perf's layout: scenario i stores its artifacts in
// <artifact-dir>/<model>-openai-<type>-<sweep><value>/ (see AnalyzeDir),
// and <artifact-dir>/analyze_export_genai_perf.csv summarises them (see
// WriteAnalyzeCSV). Otherwise it is Sweep: --num-profile-runs, failures,
// cancellation and the errors returned are the same.
func Analyze(ctx context.Context, cfg *runner.Config, opts Options) ([]PointResult, error) {
	return runSweep(ctx, cfg, opts, layout{
		dest:    cfg.ArtifactDir,
		dir:     func(_ int, p Point) string { return AnalyzeDir(cfg, p) },
		summary: AnalyzeSummaryName,
		write:   WriteAnalyzeCSV,
		print:   printAnalyze,
	})
}

// ApplyAnalyzeSweep sets cfg up for `aiperf analyze`: sweepType is
// GenAI-Perf's --sweep-type (one of AnalyzeSweepTypes), and exactly one
// of rangeSpec (--sweep-range min:max[:step]; without a step the powers
// of two from min to max, or every integer for num_dataset_entries, see
// ParseSweepInts) and list (--sweep-list a,b,c, integers >= 1) gives its
// values. It refuses the profile flags' own sweep lists (analyze sweeps
// one setting) and clears --sweep-type grid|zip. Every error names the
// flag and the fix.
func ApplyAnalyzeSweep(cfg *runner.Config, sweepType, rangeSpec, list string) error {
	var p *param
	for _, q := range params {
		if q.analyze != "" && q.analyze == sweepType {
			p = q
		}
	}
	if p == nil {
		if sweepType == "" {
			return fmt.Errorf("--sweep-type is required: one of %s", strings.Join(AnalyzeSweepTypes(), ", "))
		}
		return fmt.Errorf("--sweep-type %q is not a setting analyze sweeps: use one of %s", sweepType, strings.Join(AnalyzeSweepTypes(), ", "))
	}
	for _, q := range params {
		if len(q.list(cfg)) > 1 {
			return fmt.Errorf("%s has several values, but analyze sweeps only its --sweep-type: give %s one value (or sweep it with aiperf profile)", q.flag, q.flag)
		}
	}
	var vs []int
	switch {
	case rangeSpec == "" && list == "":
		return fmt.Errorf("--sweep-type %s needs its values: give --sweep-range min:max[:step] or --sweep-list a,b,c", sweepType)
	case rangeSpec != "" && list != "":
		return errors.New("--sweep-range and --sweep-list are both given: give one of them")
	case rangeSpec != "":
		if !strings.Contains(rangeSpec, ":") || strings.Contains(rangeSpec, ",") {
			return fmt.Errorf("--sweep-range %q: write min:max or min:max:step, e.g. 8:256 or 100:500:50", rangeSpec)
		}
		var err error
		if vs, err = ParseSweepInts(rangeSpec, p.name == "num_dataset_entries"); err != nil {
			return fmt.Errorf("--sweep-range: %w", err)
		}
	default:
		for _, item := range strings.Split(list, ",") {
			v, err := parseWhole(strings.TrimSpace(item))
			if err != nil {
				return fmt.Errorf("--sweep-list: %w", err)
			}
			if v < 1 {
				return fmt.Errorf("--sweep-list value %d must be >= 1", v)
			}
			vs = append(vs, v)
		}
		if len(vs) > MaxSweepValues {
			return fmt.Errorf("--sweep-list has more than %d values: sweep fewer", MaxSweepValues)
		}
	}
	p.setList(cfg, vs)
	cfg.AnalyzeSweepType, cfg.SweepType = sweepType, ""
	return nil
}

// AnalyzeDir is the scenario directory GenAI-Perf's analyze names for
// point p: <model>-<service kind>-<type or backend>-<name><value>, e.g.
// gpt2-openai-chat-input_sequence_length128 or
// gpt2-triton-tensorrtllm-runtime_batch_size4 (a model name's "/" becomes
// "_"; several models: the first plus "_multi").
func AnalyzeDir(cfg *runner.Config, p Point) string {
	model := "model"
	if len(cfg.Models) > 0 {
		model = strings.ReplaceAll(cfg.Models[0], "/", "_")
		if len(cfg.Models) > 1 {
			model += "_multi"
		}
	}
	kind := "openai-" + cfg.EndpointType
	if cfg.ServiceKind == "triton" {
		backend := cfg.Backend
		if backend == "" {
			backend = "tensorrtllm"
		}
		kind = "triton-" + strings.ToLower(backend)
	}
	parts := []string{model, kind}
	for _, s := range p.Settings {
		name := s.p.genai
		if name == "" {
			name = s.p.name
		}
		parts = append(parts, name+strconv.FormatFloat(s.Value, 'f', -1, 64))
	}
	return strings.Join(parts, "-")
}

// analyzeRow is the summary row of scenario i: its config name, the load
// (concurrency or request rate), the measured ISL (p99, as an integer),
// the configured number of dataset entries, then the metric columns as
// means over the scenario's successful runs with two decimals ("" when
// none has the metric).
func analyzeRow(i int, r PointResult) []string {
	model := "model"
	if len(r.Config.Models) > 0 {
		model = r.Config.Models[0]
	}
	isl := ""
	if v, ok := meanStat(r.Outcomes, "input_sequence_length", "p99"); ok {
		isl = strconv.Itoa(int(math.Trunc(v)))
	}
	row := []string{fmt.Sprintf("%s_run_config_%d", model, i), loadValue(r), isl, strconv.Itoa(r.Config.NumDatasetEntries)}
	for _, c := range analyzeColumns {
		row = append(row, meanCell(r.Outcomes, c.tag, c.stat))
	}
	return row
}

// loadIsRate reports whether the summary's load column is the request
// rate: a request_rate sweep, or another sweep at a --request-rate
// without --concurrency (GenAI-Perf's choice).
func loadIsRate(cfg *runner.Config) bool {
	switch cfg.AnalyzeSweepType {
	case "concurrency":
		return false
	case "request_rate":
		return true
	}
	return cfg.Concurrency == 0 && cfg.RequestRate > 0
}

// loadValue is the scenario's load: its concurrency (1 when unset), or
// its request rate (a swept one as an integer, a given one as Python's
// float repr, as GenAI-Perf prints them).
func loadValue(r PointResult) string {
	c := r.Config
	if !loadIsRate(c) {
		return strconv.Itoa(max(c.Concurrency, 1))
	}
	if c.AnalyzeSweepType == "request_rate" {
		return strconv.FormatFloat(c.RequestRate, 'f', -1, 64)
	}
	return string(pyjson.AppendFloat(nil, c.RequestRate))
}

// analyzeHeader is the summary's header row; short gives the console's.
func analyzeHeader(cfg *runner.Config, short bool) []string {
	load := "Concurrency"
	if loadIsRate(cfg) {
		load = "Request Rate"
	}
	h := []string{"Config Name", load, "ISL", "Num Dataset Entries"}
	for _, c := range analyzeColumns {
		if short {
			h = append(h, c.short)
		} else {
			h = append(h, c.header)
		}
	}
	return h
}

// WriteAnalyzeCSV writes GenAI-Perf's analyze summary: the header row
// Config Name, Concurrency (or Request Rate), ISL, Num Dataset Entries,
// p99 Time To First Token (ms), p99 Inter Token Latency (ms), p99 Request
// Latency (ms), p99 Output Sequence Length (tokens), Avg. Output Token
// Throughput (tokens/sec), Request Throughput (requests/sec); one row per
// scenario in sweep order, named <model>_run_config_<i>; then an empty
// line and the GPU telemetry table's header (GenAI-Perf's second table,
// which has no rows here). CRLF line ends, as Python's csv module writes.
func WriteAnalyzeCSV(w io.Writer, results []PointResult) error {
	if len(results) == 0 {
		return nil
	}
	rows := append(analyzeTable(results, false), nil, analyzeGPUHeader)
	if err := writeCSV(w, rows); err != nil {
		return fmt.Errorf("write analyze summary: %w", err)
	}
	return nil
}

// printAnalyze prints the analyze summary as an aligned table.
func printAnalyze(opts Options, results []PointResult, at string) error {
	if len(results) == 0 {
		return nil
	}
	return printSummary(opts.stdout(), "Analyze", fmt.Sprintf("%d scenarios", len(results)), analyzeTable(results, true), at)
}

// analyzeTable is the analyze summary's first table: its header row
// (short: the console's) and a row per scenario.
func analyzeTable(results []PointResult, short bool) [][]string {
	rows := [][]string{analyzeHeader(results[0].Config, short)}
	for i, r := range results {
		rows = append(rows, analyzeRow(i, r))
	}
	return rows
}
