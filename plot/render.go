package plot

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/vg"
)

// Chart size of every file Render writes.
const (
	chartWidth  = 8 * vg.Inch
	chartHeight = 5 * vg.Inch
)

// Axis labels of the Pareto charts.
const (
	paretoX = "TTFT p50 (ms)"
	paretoY = "output token throughput (tokens/s)"
	perGPUY = "output token throughput per GPU (tokens/s/GPU)"
)

// Render draws the charts of runs in db into dir (created if needed) and
// returns the paths written, report.html last. The run-level charts cover
// the named runs, or every run when runIDs is empty, in both cases only
// those o.Where keeps; runs that failed, did not finish or judged
// themselves degraded are drawn marked and left off every frontier. The
// Pareto chart (pareto.png, pareto.svg) joins each group's runs (o.GroupBy)
// in order of concurrency or request rate, labels them with it and draws
// each group's frontier; colours come from the group's name
// (groupColor), so a group keeps its colour across reports. The per-run
// charts (<run>-ttft.*, <run>-latency.*, …) cover the named runs, or the
// newest complete run. report.html is one self-contained page: a runs
// table, interactive charts (Chart.js, embedded: hover, legend, metric
// and statistic switches; assets/report.js) and every other chart's SVG
// inline. A chart without data (TTFT of a non-streaming run, no run with
// a summary) is left out and noted in the page. When runs record their
// GPU count (runs.gpu_count), the Pareto section adds AIPerf's
// throughput-per-GPU charts against request latency and against per-user
// throughput (pareto-throughput-per-gpu-vs-latency.*,
// pareto-throughput-per-gpu-vs-interactivity.*); a run with GPU telemetry
// adds <run>-gpu.* (GPUOverTime). A named run missing from db is
// ErrRunNotFound; an invalid o.GroupBy is ErrGroupBy, an invalid o.Where
// ErrWhere, an invalid o.Theme ErrTheme. o.Theme dark draws every chart
// and the page with light ink on a dark ground. Render blocks until
// everything is written; files already in dir are overwritten.
func Render(ctx context.Context, db *sql.DB, dir string, runIDs []string, o Options) ([]string, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	where, err := parseWhere(ctx, db, o.Where)
	if err != nil {
		return nil, err
	}
	runs, err := loadRuns(ctx, db, runIDs, where, o)
	if err != nil {
		return nil, err
	}
	points, err := loadPoints(ctx, db, runs)
	if err != nil {
		return nil, err
	}
	detail := runIDs
	if len(detail) == 0 {
		id, err := newestRun(ctx, db, where)
		if err != nil {
			return nil, err
		}
		if id != "" {
			detail = []string{id}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}

	th, _ := parseTheme(o.Theme) // checked above
	w := &writer{dir: dir, theme: th}
	rep := report{Title: "aiperf-go benchmark report", Group: o.groupName(), Where: strings.TrimSpace(o.Where),
		Style: th.pageStyle(), ChartDefaults: th.chartJSDefaults(),
		Runs: runRows(runs, points), Data: newPageData(runs), ChartJS: script("chart.umd.min.js"), App: script("report.js")}
	front := section{Heading: "Per-user and per-GPU throughput"}
	if len(runs) == 0 {
		front.Notes = append(front.Notes, "No runs.")
	} else {
		p, err := Pareto(points, paretoX, paretoY)
		// The interactive chart shows this one in the page; the files stay
		// for CI artifacts.
		w.addFiles(&front, "pareto", p, err)
		inter, err := loadInteractivity(ctx, db, runs)
		if err != nil {
			return w.paths, err
		}
		p, err = ParetoMax(inter, "output token throughput per user p50 (tokens/s/user)", paretoY)
		w.add(&front, "pareto-interactivity", "Throughput vs per-user throughput", p, err)
		if err := w.addPerGPUCharts(ctx, db, &front, runs); err != nil {
			return w.paths, err
		}
	}
	rep.Sections = append(rep.Sections, front)

	for _, id := range detail {
		if err := ctx.Err(); err != nil {
			return w.paths, err
		}
		reqs, err := loadRequests(ctx, db, id)
		if err != nil {
			return w.paths, err
		}
		s := section{Heading: "Run " + id}
		base := fileBase(id)
		p, err := TTFTOverTime(id, reqs)
		w.add(&s, base+"-ttft", "TTFT over time", p, err)
		p, err = ITLOverTime(id, reqs)
		w.add(&s, base+"-itl", "ITL over time", p, err)
		p, err = LatencyOverTime(id, reqs)
		w.add(&s, base+"-latency-over-time", "Request latency over time", p, err)
		p, err = ThroughputOverTime(id, reqs, 0)
		w.add(&s, base+"-throughput", "Output token throughput over time", p, err)
		if err := w.addGPUChart(ctx, db, &s, id, base, reqs); err != nil {
			return w.paths, err
		}
		p, err = ISLvsOSL(id, reqs)
		w.add(&s, base+"-isl-osl", "ISL vs OSL", p, err)
		p, err = LatencyHistogram(id, reqs, 0)
		w.add(&s, base+"-latency", "Request latency", p, err)
		rep.Sections = append(rep.Sections, s)
	}
	if w.err != nil {
		return w.paths, w.err
	}

	var page bytes.Buffer
	if err := writeHTML(&page, rep); err != nil {
		return w.paths, err
	}
	html := filepath.Join(dir, "report.html")
	if err := os.WriteFile(html, page.Bytes(), 0o644); err != nil {
		return w.paths, fmt.Errorf("render: %w", err)
	}
	return append(w.paths, html), nil
}

// addPerGPUCharts adds AIPerf's pareto_curve_throughput_per_gpu_vs_latency
// (request latency avg against throughput per GPU, both optimised as
// latency and throughput) and _vs_interactivity (output token throughput
// per user avg, maximised, against throughput per GPU) to s, when a run
// knows its GPU count; else it adds nothing.
func (w *writer) addPerGPUCharts(ctx context.Context, db *sql.DB, s *section, runs []runInfo) error {
	lat, err := loadPerGPU(ctx, db, runs, metricAvgSQL("request_latency"))
	if err != nil || !anyFiniteY(lat) {
		return err
	}
	p, err := Pareto(lat, "request latency avg (ms)", perGPUY)
	w.add(s, "pareto-throughput-per-gpu-vs-latency", "Throughput per GPU vs latency", p, err)
	inter, err := loadPerGPU(ctx, db, runs, metricAvgSQL("output_token_throughput_per_user"))
	if err != nil {
		return err
	}
	p, err = ParetoMax(inter, "output token throughput per user avg (tokens/s/user)", perGPUY)
	w.add(s, "pareto-throughput-per-gpu-vs-interactivity", "Throughput per GPU vs interactivity", p, err)
	return nil
}

// addGPUChart adds the run's GPUOverTime chart to s, as base-gpu, when the
// run has GPU telemetry; else it adds nothing.
func (w *writer) addGPUChart(ctx context.Context, db *sql.DB, s *section, runID, base string, reqs []Request) error {
	samples, err := loadGPUSamples(ctx, db, runID)
	if err != nil || len(samples) == 0 {
		return err
	}
	f, err := GPUOverTime(runID, reqs, samples)
	w.add(s, base+"-gpu", "GPU utilisation and power with throughput", f, err)
	return nil
}

// writer saves charts as PNG and SVG, remembering the paths written and
// the first error.
type writer struct {
	dir   string
	theme theme
	paths []string
	err   error
}

// chartDrawer draws a chart in a format: a *gonumplot.Plot, or a Figure
// of stacked panels.
type chartDrawer interface {
	WriterTo(w, h vg.Length, format string) (io.WriterTo, error)
}

// add saves p as base.png and base.svg and appends it to s; when the chart
// could not be drawn (perr), it appends perr as a note instead.
func (w *writer) add(s *section, base, title string, p chartDrawer, perr error) {
	if svg := w.addFiles(s, base, p, perr); svg != nil {
		s.Charts = append(s.Charts, chart{Title: title, File: base, SVG: inlineSVG(svg)})
	}
}

// addFiles saves p as base.png and base.svg and returns the SVG, nil when
// it was not drawn (perr, noted in s) or could not be written (w.err).
func (w *writer) addFiles(s *section, base string, p chartDrawer, perr error) []byte {
	if w.err != nil {
		return nil
	}
	if perr != nil {
		s.Notes = append(s.Notes, perr.Error())
		return nil
	}
	w.theme.apply(p)
	var svg []byte
	for _, format := range []string{"png", "svg"} {
		wt, err := p.WriterTo(chartWidth, chartHeight, format)
		if err != nil {
			w.err = fmt.Errorf("render %s: %w", base, err)
			return nil
		}
		var b bytes.Buffer
		if _, err := wt.WriteTo(&b); err != nil {
			w.err = fmt.Errorf("render %s: %w", base, err)
			return nil
		}
		path := filepath.Join(w.dir, base+"."+format)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			w.err = fmt.Errorf("render: %w", err)
			return nil
		}
		w.paths = append(w.paths, path)
		svg = b.Bytes()
	}
	return svg
}

// fileBase turns a run id into a file name: every character other than a
// letter, digit, '.', '-' or '_' becomes '_'.
func fileBase(runID string) string {
	b := []byte(runID)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
		if !ok {
			b[i] = '_'
		}
	}
	s := strings.TrimLeft(string(b), ".")
	if s == "" {
		s = "run"
	}
	return s
}
