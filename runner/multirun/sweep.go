package multirun

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/runner"
)

// SweepSummaryName is the sweep's one summary CSV, at the top of its
// destination.
const SweepSummaryName = "sweep_summary.csv"

// Point is one value of a sweep: a concurrency or a request rate.
type Point struct {
	// Param is "concurrency" or "request_rate".
	Param string
	// Concurrency or Rate is the value (the other is zero).
	Concurrency int
	Rate        float64
}

// Value is the point's value as written in names and the summary: "4",
// "10.0" (Python's float repr).
func (p Point) Value() string {
	if p.Param == "concurrency" {
		return strconv.Itoa(p.Concurrency)
	}
	return string(pyjson.AppendFloat(nil, p.Rate))
}

// Dir is the point's subdirectory, as AIPerf names sweep values:
// concurrency_4, request_rate_10.0.
func (p Point) Dir() string { return p.Param + "_" + p.Value() }

// Points returns the sweep of cfg: one point per value of a --concurrency
// list or a --request-rate list with more than one value, in the order
// given; nil when cfg is not a sweep. When both are lists it sweeps
// concurrency (Check rejects that configuration).
func Points(cfg *runner.Config) []Point {
	var ps []Point
	switch {
	case len(cfg.ConcurrencyList) > 1:
		for _, v := range cfg.ConcurrencyList {
			ps = append(ps, Point{Param: "concurrency", Concurrency: v})
		}
	case len(cfg.RequestRateList) > 1:
		for _, v := range cfg.RequestRateList {
			ps = append(ps, Point{Param: "request_rate", Rate: v})
		}
	}
	return ps
}

// SweepDest is the sweep's destination: --artifact-dir itself when given,
// else artifacts/<model>-openai-<type>-<param>_sweep (AIPerf's naming).
func SweepDest(cfg *runner.Config) string {
	ps := Points(cfg)
	if cfg.ArtifactDirSet || len(ps) == 0 {
		return runner.ArtifactDir(cfg)
	}
	c := pointConfig(cfg, ps[0], 0)
	c.ArtifactDirSet = false
	dir := runner.ArtifactDir(c)
	return strings.TrimSuffix(dir, c.Stimulus()) + ps[0].Param + "_sweep"
}

// pointConfig is cfg at point p, the i-th (0-based) of the sweep. With a
// --random-seed or --set-consistent-seed, point i uses seed base+i (base
// the given seed, else 42), as AIPerf derives sweep seeds.
func pointConfig(cfg *runner.Config, p Point, i int) *runner.Config {
	c := *cfg
	c.ConcurrencyList, c.RequestRateList = nil, nil
	if p.Param == "concurrency" {
		c.Concurrency = p.Concurrency
	} else {
		c.RequestRate = p.Rate
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

// PointResult is the outcome of one sweep point.
type PointResult struct {
	Point
	// Dest is where the point's artifacts are.
	Dest string
	// Outcomes has one entry per profile run of the point.
	Outcomes []Outcome
}

// Sweep runs one benchmark per point of cfg's sweep (§5.8 [new], GenAI-Perf
// analyze): point p stores its artifacts in <dest>/<p.Dir()>/ and, with
// --num-profile-runs N > 1, is a multi-run benchmark there (all N runs of
// a point before the next point). <dest> is SweepDest(cfg). At the end it
// stores <dest>/sweep_summary.csv (see WriteSweepCSV) and prints it.
//
// A failed point does not stop the sweep. It returns ErrAllRunsFailed when
// no point succeeded, an error wrapping runner.ErrInterrupted when ctx was
// cancelled (the points so far are still summarised), and at once a
// *runner.InputError.
func Sweep(ctx context.Context, cfg *runner.Config, opts Options) ([]PointResult, error) {
	dest := SweepDest(cfg)
	ps := Points(cfg)
	var results []PointResult
	interrupted := false
	for i, p := range ps {
		pdest, err := Join(dest, p.Dir())
		if err != nil {
			return results, err
		}
		c := pointConfig(cfg, p, i)
		c.ArtifactDir, c.ArtifactDirSet = pdest, true
		fmt.Fprintf(opts.stdout(), "\nSweep point %d/%d (%s %s): %s\n", i+1, len(ps), p.Param, p.Value(), pdest)
		pr := PointResult{Point: p, Dest: pdest}
		if c.NumProfileRuns > 1 {
			rep, err := Profile(ctx, c, opts)
			if rep != nil {
				pr.Outcomes = rep.Outcomes
			}
			if inputErr := (*runner.InputError)(nil); errors.As(err, &inputErr) {
				return results, err
			}
			if err != nil {
				opts.logger().Warn("sweep point", "point", p.Dir(), "err", err)
			}
			interrupted = errors.Is(err, runner.ErrInterrupted)
		} else {
			res, err := opts.Run(ctx, c)
			if inputErr := (*runner.InputError)(nil); errors.As(err, &inputErr) {
				return results, err
			}
			o := Outcome{Label: RunLabel(1), Err: err}
			if res != nil {
				o.Summary = res.Summary
			}
			pr.Outcomes = []Outcome{o}
			interrupted = errors.Is(err, runner.ErrInterrupted)
		}
		results = append(results, pr)
		if interrupted || ctx.Err() != nil {
			interrupted = true
			break
		}
	}
	var buf bytes.Buffer
	if err := WriteSweepCSV(&buf, results); err != nil {
		return results, err
	}
	if err := putObjects(context.WithoutCancel(ctx), dest, opts.Stores, object{SweepSummaryName, buf.Bytes()}); err != nil {
		return results, fmt.Errorf("sweep summary: %w", err)
	}
	if err := printSweep(opts, results, where(dest, SweepSummaryName)); err != nil {
		return results, err
	}
	ok := 0
	for _, r := range results {
		if successes(r.Outcomes) > 0 {
			ok++
		}
	}
	switch {
	case interrupted:
		return results, fmt.Errorf("%w after %d of %d sweep points", runner.ErrInterrupted, len(results), len(ps))
	case ok == 0:
		return results, fmt.Errorf("%w: no sweep point had a successful run", ErrAllRunsFailed)
	}
	return results, nil
}

// sweepColumn is one metric column of the sweep summary: its header in
// the CSV and its shorter one on the console.
type sweepColumn struct {
	tag, stat, header, short string
}

// sweepColumns are the headline metrics of the sweep summary, in order.
var sweepColumns = []sweepColumn{
	{"request_throughput", "avg", "Request Throughput (requests/sec)", "req/s"},
	{"output_token_throughput", "avg", "Output Token Throughput (tokens/sec)", "tok/s"},
	{"time_to_first_token", "p50", "p50 Time to First Token (ms)", "TTFT p50"},
	{"time_to_first_token", "p99", "p99 Time to First Token (ms)", "TTFT p99"},
	{"inter_token_latency", "p50", "p50 Inter Token Latency (ms)", "ITL p50"},
	{"inter_token_latency", "p99", "p99 Inter Token Latency (ms)", "ITL p99"},
	{"request_latency", "p50", "p50 Request Latency (ms)", "latency p50"},
	{"request_latency", "p99", "p99 Request Latency (ms)", "latency p99"},
}

// sweepHeader is the summary's header row for a sweep of param; short
// gives the console's headers.
func sweepHeader(param string, short bool) []string {
	h := []string{"Concurrency"}
	if param == "request_rate" {
		h[0] = "Request Rate"
	}
	if short {
		h = append(h, "runs ok")
	} else {
		h = append(h, "Successful Runs")
	}
	for _, c := range sweepColumns {
		if short {
			h = append(h, c.short)
		} else {
			h = append(h, c.header)
		}
	}
	if short {
		return append(h, "errors")
	}
	return append(h, "Error Count")
}

// sweepRow is the summary row of one point: its value, how many of its
// runs succeeded, each headline metric as the mean over the successful
// runs (empty when no run has it, e.g. TTFT without --streaming), and the
// total failed requests over all its runs.
func sweepRow(r PointResult) []string {
	row := []string{r.Value(), strconv.Itoa(successes(r.Outcomes))}
	for _, c := range sweepColumns {
		var sum float64
		n := 0
		for _, o := range r.Outcomes {
			if o.Err != nil || o.Summary == nil {
				continue
			}
			if res := o.Summary.Get(c.tag); res != nil {
				if v, ok := stat(res, c.stat); ok && finite(v) {
					sum += v
					n++
				}
			}
		}
		if n == 0 {
			row = append(row, "")
			continue
		}
		row = append(row, strconv.FormatFloat(sum/float64(n), 'f', 2, 64))
	}
	errs := 0
	for _, o := range r.Outcomes {
		if o.Summary != nil {
			errs += o.Summary.Failed
		}
	}
	return append(row, strconv.Itoa(errs))
}

// WriteSweepCSV writes the sweep summary: a header row (Concurrency or
// Request Rate, Successful Runs, Request Throughput (requests/sec), Output
// Token Throughput (tokens/sec), p50/p99 Time to First Token (ms), p50/p99
// Inter Token Latency (ms), p50/p99 Request Latency (ms), Error Count) and
// one row per point in sweep order. Metric cells are means over the
// point's successful runs with two decimals; CRLF line ends, as AIPerf's
// CSVs.
func WriteSweepCSV(w io.Writer, results []PointResult) error {
	if len(results) == 0 {
		return nil
	}
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	rows := [][]string{sweepHeader(results[0].Param, false)}
	for _, r := range results {
		rows = append(rows, sweepRow(r))
	}
	if err := cw.WriteAll(rows); err != nil {
		return fmt.Errorf("write sweep summary: %w", err)
	}
	return nil
}

// printSweep prints the sweep summary as an aligned table to opts.Stdout.
func printSweep(opts Options, results []PointResult, at string) error {
	if len(results) == 0 {
		return nil
	}
	out := opts.stdout()
	fmt.Fprintf(out, "\nSweep Summary (%d points; throughput per second, latencies in ms)\n", len(results))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(sweepHeader(results[0].Param, true), "\t")+"\t")
	for _, r := range results {
		fmt.Fprintln(tw, strings.Join(sweepRow(r), "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("print sweep summary: %w", err)
	}
	_, err := fmt.Fprintf(out, "Sweep Summary CSV: %s\n", at)
	return err
}

// successes counts the successful outcomes.
func successes(outcomes []Outcome) int {
	n := 0
	for _, o := range outcomes {
		if o.Err == nil && o.Summary != nil {
			n++
		}
	}
	return n
}
