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

	"github.com/aiperf-go/aiperf/runner"
)

// SweepSummaryName is the sweep's one summary CSV, at the top of its
// destination.
const SweepSummaryName = "sweep_summary.csv"

// SweepDest is the sweep's destination: --artifact-dir itself when given,
// else artifacts/<model>-openai-<type>-<param>_sweep (AIPerf's naming;
// the swept settings' names joined by "__" when several are swept).
func SweepDest(cfg *runner.Config) string {
	ps := Points(cfg)
	if cfg.ArtifactDirSet || len(ps) == 0 {
		return runner.ArtifactDir(cfg)
	}
	c := pointConfig(cfg, ps[0], 0)
	c.ArtifactDirSet = false
	dir := runner.ArtifactDir(c)
	names := make([]string, len(ps[0].Settings))
	for i, s := range ps[0].Settings {
		names[i] = s.Param()
	}
	return strings.TrimSuffix(dir, c.Stimulus()) + strings.Join(names, "__") + "_sweep"
}

// PointResult is the outcome of one sweep point.
type PointResult struct {
	Point
	// Config is the point's configuration; Dest is where its artifacts are.
	Config *runner.Config
	Dest   string
	// Outcomes has one entry per profile run of the point.
	Outcomes []Outcome
}

// layout is where a sweep stores its points and which summary it writes.
type layout struct {
	// dest is the sweep's destination; dir names point i's subdirectory.
	dest string
	dir  func(i int, p Point) string
	// summary is the summary CSV's name at the top of dest; write writes
	// it and print prints it (at is where it was stored).
	summary string
	write   func(w io.Writer, results []PointResult) error
	print   func(opts Options, results []PointResult, at string) error
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
	return runSweep(ctx, cfg, opts, layout{
		dest:    SweepDest(cfg),
		dir:     func(_ int, p Point) string { return p.Dir() },
		summary: SweepSummaryName,
		write:   WriteSweepCSV,
		print:   printSweep,
	})
}

// runSweep runs the points of cfg's sweep stored as l says (see Sweep).
func runSweep(ctx context.Context, cfg *runner.Config, opts Options, l layout) ([]PointResult, error) {
	ps := Points(cfg)
	var results []PointResult
	interrupted := false
	for i, p := range ps {
		pdest, err := Join(l.dest, l.dir(i, p))
		if err != nil {
			return results, err
		}
		c := pointConfig(cfg, p, i)
		c.ArtifactDir, c.ArtifactDirSet = pdest, true
		fmt.Fprintf(opts.stdout(), "\nSweep point %d/%d (%s): %s\n", i+1, len(ps), p.Label(), pdest)
		pr := PointResult{Point: p, Config: c, Dest: pdest}
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
	if err := l.write(&buf, results); err != nil {
		return results, err
	}
	if err := putObjects(context.WithoutCancel(ctx), l.dest, opts.Stores, object{l.summary, buf.Bytes()}); err != nil {
		return results, fmt.Errorf("sweep summary: %w", err)
	}
	if err := l.print(opts, results, where(l.dest, l.summary)); err != nil {
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

// sweepHeader is the summary's header row for a sweep of p's settings;
// short gives the console's headers.
func sweepHeader(p Point, short bool) []string {
	var h []string
	for _, s := range p.Settings {
		h = append(h, s.p.header)
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

// sweepRow is the summary row of one point: its values, how many of its
// runs succeeded, each headline metric as the mean over the successful
// runs (empty when no run has it, e.g. TTFT without --streaming), and the
// total failed requests over all its runs.
func sweepRow(r PointResult) []string {
	var row []string
	for _, s := range r.Settings {
		row = append(row, s.Text())
	}
	row = append(row, strconv.Itoa(successes(r.Outcomes)))
	for _, c := range sweepColumns {
		row = append(row, meanCell(r.Outcomes, c.tag, c.stat))
	}
	errs := 0
	for _, o := range r.Outcomes {
		if o.Summary != nil {
			errs += o.Summary.Failed
		}
	}
	return append(row, strconv.Itoa(errs))
}

// WriteSweepCSV writes the sweep summary: a header row (a column per
// swept setting: Concurrency, Request Rate, ISL, OSL, Num Dataset Entries,
// Batch Size; then Successful Runs, Request Throughput (requests/sec), Output
// Token Throughput (tokens/sec), p50/p99 Time to First Token (ms), p50/p99
// Inter Token Latency (ms), p50/p99 Request Latency (ms), Error Count) and
// one row per point in sweep order. Metric cells are means over the
// point's successful runs with two decimals; CRLF line ends, as AIPerf's
// CSVs.
func WriteSweepCSV(w io.Writer, results []PointResult) error {
	if len(results) == 0 {
		return nil
	}
	if err := writeCSV(w, sweepTable(results, false)); err != nil {
		return fmt.Errorf("write sweep summary: %w", err)
	}
	return nil
}

// printSweep prints the sweep summary as an aligned table to opts.Stdout.
func printSweep(opts Options, results []PointResult, at string) error {
	if len(results) == 0 {
		return nil
	}
	return printSummary(opts.stdout(), "Sweep", fmt.Sprintf("%d points", len(results)), sweepTable(results, true), at)
}

// sweepTable is the sweep summary: its header row (short: the console's)
// and a row per point.
func sweepTable(results []PointResult, short bool) [][]string {
	rows := [][]string{sweepHeader(results[0].Point, short)}
	for _, r := range results {
		rows = append(rows, sweepRow(r))
	}
	return rows
}

// writeCSV writes rows with CRLF line ends, as Python's csv module writes
// them; an empty row is an empty line.
func writeCSV(w io.Writer, rows [][]string) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	return cw.WriteAll(rows)
}

// printSummary prints the summary table rows (the header first) of a
// sweep to out: the title "<name> Summary (<count>; throughput per
// second, latencies in ms)" after an empty line, the rows right-aligned,
// then "<name> Summary CSV: <at>".
func printSummary(out io.Writer, name, count string, rows [][]string, at string) error {
	fmt.Fprintf(out, "\n%s Summary (%s; throughput per second, latencies in ms)\n", name, count)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, row := range rows {
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("print %s summary: %w", strings.ToLower(name), err)
	}
	_, err := fmt.Fprintf(out, "%s Summary CSV: %s\n", name, at)
	return err
}

// meanCell is statistic st of metric tag as the mean over the successful
// outcomes with two decimals, "" when none has it (e.g. TTFT without
// --streaming).
func meanCell(outcomes []Outcome, tag, st string) string {
	v, ok := meanStat(outcomes, tag, st)
	if !ok {
		return ""
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// meanStat is statistic st of metric tag as the mean over the successful
// outcomes; false when none has it.
func meanStat(outcomes []Outcome, tag, st string) (float64, bool) {
	var sum float64
	n := 0
	for _, o := range outcomes {
		if o.Err != nil || o.Summary == nil {
			continue
		}
		if res := o.Summary.Get(tag); res != nil {
			if v, ok := stat(res, st); ok && finite(v) {
				sum += v
				n++
			}
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
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
