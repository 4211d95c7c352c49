package multirun

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/runner"
)

// param is a setting a sweep can vary.
type param struct {
	// name is AIPerf-style, as in point directories (concurrency_4) and
	// the sweep's default destination (…-isl_sweep).
	name string
	// header is the setting's column in sweep_summary.csv.
	header string
	// flag is the profile flag whose list sweeps it.
	flag string
	// analyze is GenAI-Perf's --sweep-type for it ("" when analyze cannot
	// sweep it) and genai its name in GenAI-Perf's artifact directories.
	analyze, genai string
	// list returns cfg's list of values; set applies one value.
	list func(*runner.Config) []float64
	set  func(*runner.Config, float64)
	// setList sets cfg's list (and its first value).
	setList func(*runner.Config, []int)
}

// ints converts an integer list to the float64 values of a Setting.
func ints(vs []int) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = float64(v)
	}
	return out
}

// params are the sweepable settings, in the order their lists combine
// (the first varies slowest in a grid) and their columns appear.
var params = []*param{
	{name: "concurrency", header: "Concurrency", flag: "--concurrency", analyze: "concurrency", genai: "concurrency",
		list:    func(c *runner.Config) []float64 { return ints(c.ConcurrencyList) },
		set:     func(c *runner.Config, v float64) { c.Concurrency = int(v) },
		setList: func(c *runner.Config, vs []int) { c.ConcurrencyList, c.Concurrency = vs, vs[0] }},
	{name: "request_rate", header: "Request Rate", flag: "--request-rate", analyze: "request_rate", genai: "request_rate",
		list:    func(c *runner.Config) []float64 { return c.RequestRateList },
		set:     func(c *runner.Config, v float64) { c.RequestRate = v },
		setList: func(c *runner.Config, vs []int) { c.RequestRateList, c.RequestRate = ints(vs), float64(vs[0]) }},
	{name: "isl", header: "ISL", flag: "--isl", analyze: "input_sequence_length", genai: "input_sequence_length",
		list:    func(c *runner.Config) []float64 { return ints(c.ISLList) },
		set:     func(c *runner.Config, v float64) { c.ISLMean = v },
		setList: func(c *runner.Config, vs []int) { c.ISLList, c.ISLMean = vs, float64(vs[0]) }},
	{name: "osl", header: "OSL", flag: "--osl",
		list:    func(c *runner.Config) []float64 { return ints(c.OSLList) },
		set:     func(c *runner.Config, v float64) { c.OSLMean = v },
		setList: func(c *runner.Config, vs []int) { c.OSLList, c.OSLMean = vs, float64(vs[0]) }},
	{name: "num_dataset_entries", header: "Num Dataset Entries", flag: "--num-dataset-entries", analyze: "num_dataset_entries", genai: "num_dataset_entries",
		list:    func(c *runner.Config) []float64 { return ints(c.NumDatasetEntriesList) },
		set:     func(c *runner.Config, v float64) { c.NumDatasetEntries, c.NumDatasetEntriesSet = int(v), true },
		setList: func(c *runner.Config, vs []int) { c.NumDatasetEntriesList, c.NumDatasetEntries = vs, vs[0] }},
	{name: "prompt_batch_size", header: "Batch Size", flag: "--prompt-batch-size", analyze: "batch_size", genai: "runtime_batch_size",
		list:    func(c *runner.Config) []float64 { return ints(c.PromptBatchSizeList) },
		set:     func(c *runner.Config, v float64) { c.PromptBatchSize = int(v) },
		setList: func(c *runner.Config, vs []int) { c.PromptBatchSizeList, c.PromptBatchSize = vs, vs[0] }},
}

// AnalyzeSweepTypes are GenAI-Perf's analyze --sweep-type values.
func AnalyzeSweepTypes() []string {
	var out []string
	for _, p := range params {
		if p.analyze != "" {
			out = append(out, p.analyze)
		}
	}
	return out
}

// Setting is one swept setting's value at a point.
type Setting struct {
	p *param
	// Value is the setting's value (a whole number but for a rate).
	Value float64
}

// Param is the setting's AIPerf-style name: concurrency, request_rate,
// isl, osl, num_dataset_entries or prompt_batch_size.
func (s Setting) Param() string { return s.p.name }

// Text is the value as written in names and the summary: "4", or a rate
// as Python's float repr ("10.0").
func (s Setting) Text() string {
	if s.p.name == "request_rate" {
		return string(pyjson.AppendFloat(nil, s.Value))
	}
	return strconv.FormatFloat(s.Value, 'f', -1, 64)
}

// Point is one benchmark of a sweep: a value for each swept setting.
type Point struct {
	Settings []Setting
}

// Dir is the point's subdirectory, as AIPerf names sweep values:
// concurrency_4, request_rate_10.0, isl_128 (AIPerf 0.13: mean_128);
// settings joined by "__" when several are swept (concurrency_4__isl_128).
func (p Point) Dir() string {
	parts := make([]string, len(p.Settings))
	for i, s := range p.Settings {
		parts[i] = s.p.name + "_" + s.Text()
	}
	return strings.Join(parts, "__")
}

// Label is the point for messages: "concurrency 4, isl 128".
func (p Point) Label() string {
	parts := make([]string, len(p.Settings))
	for i, s := range p.Settings {
		parts[i] = s.p.name + " " + s.Text()
	}
	return strings.Join(parts, ", ")
}

// swept returns the settings cfg sweeps with their values: a list of more
// than one value, or under `aiperf analyze` the list of its sweep type.
func swept(cfg *runner.Config) (ps []*param, values [][]float64) {
	for _, p := range params {
		vs := p.list(cfg)
		if len(vs) > 1 || len(vs) == 1 && cfg.AnalyzeSweepType != "" && p.analyze == cfg.AnalyzeSweepType {
			ps, values = append(ps, p), append(values, vs)
		}
	}
	return ps, values
}

// Points returns the sweep of cfg, nil when cfg is not a sweep. Lists
// combine as cfg.SweepType says: "zip" pairs them element-wise (Check
// requires equal lengths), else ("grid", the default) every combination,
// the first setting of params varying slowest, each list in its given
// order.
func Points(cfg *runner.Config) []Point {
	ps, values := swept(cfg)
	if len(ps) == 0 {
		return nil
	}
	var out []Point
	if cfg.SweepType == "zip" {
		n := len(values[0])
		for _, vs := range values {
			n = min(n, len(vs))
		}
		for i := range n {
			var pt Point
			for j, p := range ps {
				pt.Settings = append(pt.Settings, Setting{p, values[j][i]})
			}
			out = append(out, pt)
		}
		return out
	}
	idx := make([]int, len(ps))
	for {
		var pt Point
		for j, p := range ps {
			pt.Settings = append(pt.Settings, Setting{p, values[j][idx[j]]})
		}
		out = append(out, pt)
		j := len(idx) - 1
		for ; j >= 0; j-- {
			if idx[j]++; idx[j] < len(values[j]) {
				break
			}
			idx[j] = 0
		}
		if j < 0 {
			return out
		}
	}
}

// checkSweep returns the errors of cfg's sweep lists: a --sweep-type other
// than grid or zip, zip lists of unequal lengths, more than MaxSweepValues
// points, and a point whose configuration Validate refuses (e.g. --isl
// 32,0), so that no request is sent before the bad point.
func checkSweep(cfg *runner.Config) []error {
	var errs []error
	switch cfg.SweepType {
	case "", "grid", "zip":
	default:
		hint := ""
		if slices.Contains(AnalyzeSweepTypes(), cfg.SweepType) {
			hint = " (" + cfg.SweepType + " is aiperf analyze's --sweep-type)"
		}
		errs = append(errs, fmt.Errorf("--sweep-type %q is not a way to combine sweep lists%s: use grid (every combination) or zip (element-wise)", cfg.SweepType, hint))
	}
	ps, values := swept(cfg)
	if cfg.SweepType == "zip" {
		for j := 1; j < len(ps); j++ {
			if len(values[j]) != len(values[0]) {
				errs = append(errs, fmt.Errorf("--sweep-type zip pairs the lists element-wise, but %s has %d values and %s has %d: give them equal lengths or use --sweep-type grid",
					ps[0].flag, len(values[0]), ps[j].flag, len(values[j])))
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	pts := Points(cfg)
	if len(pts) > MaxSweepValues {
		return append(errs, fmt.Errorf("the sweep has %d points (more than %d): sweep fewer values or use --sweep-type zip", len(pts), MaxSweepValues))
	}
	for i, pt := range pts {
		if err := pointConfig(cfg, pt, i).Validate(); err != nil {
			return append(errs, fmt.Errorf("sweep point %s: %w", pt.Label(), err))
		}
	}
	return errs
}

// pointConfig is cfg at point pt, the i-th (0-based) of the sweep. With a
// --random-seed or --set-consistent-seed, point i uses seed base+i (base
// the given seed, else 42), as AIPerf derives sweep seeds.
func pointConfig(cfg *runner.Config, pt Point, i int) *runner.Config {
	c := *cfg
	c.ConcurrencyList, c.RequestRateList = nil, nil
	c.ISLList, c.OSLList, c.NumDatasetEntriesList, c.PromptBatchSizeList = nil, nil, nil, nil
	for _, s := range pt.Settings {
		s.p.set(&c, s.Value)
	}
	base, ok := c.RandomSeed, c.RandomSeedSet
	if !ok && c.SetConsistentSeed {
		base, ok = ConsistentSeed, true
	}
	if ok {
		c.RandomSeed, c.RandomSeedSet = base+uint64(i), true
	}
	return &c
}
