package plot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"image/color"
	"io"
	"maps"
	"math"
	"net/url"
	"slices"
	"sort"

	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// GPUSample is one GPU reading on a run's time axis.
type GPUSample struct {
	// GPU names the GPU in the legend ("GPU 0", or "GPU 0 host:9400"
	// when the run has several sources).
	GPU string
	// Time is seconds since the run's first request started.
	Time float64
	// Utilization is in %, Power in W; NaN when the reading has none.
	Utilization, Power float64
}

// Figure is a chart of several panels stacked over one time axis. It
// draws itself as a *gonumplot.Plot does.
type Figure struct {
	Panels []*gonumplot.Plot
	// Background, when set, fills the whole canvas, the padding between
	// panels included; nil leaves it as the format starts it.
	Background color.Color
}

// WriterTo draws the panels one above the other on a canvas of width w
// and height h, each panel at least h/2 tall (the canvas grows past h
// for more than two), in format (png, svg, …).
func (f *Figure) WriterTo(w, h vg.Length, format string) (io.WriterTo, error) {
	n := len(f.Panels)
	if n == 0 {
		return nil, errors.New("figure: no panels")
	}
	h = max(h, vg.Length(n)*h/2)
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return nil, err
	}
	tiles := draw.Tiles{Rows: n, Cols: 1, PadX: vg.Millimeter, PadY: 2 * vg.Millimeter,
		PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: 2 * vg.Millimeter}
	plots := make([][]*gonumplot.Plot, n)
	for i, p := range f.Panels {
		plots[i] = []*gonumplot.Plot{p}
	}
	dc := draw.New(c)
	fillBackground(dc, f.Background)
	canvases := gonumplot.Align(plots, tiles, dc)
	for i, p := range f.Panels {
		p.Draw(canvases[i][0])
	}
	return c, nil
}

// GPUOverTime stacks three panels over the run's time: output token
// throughput (as ThroughputOverTime draws it), each GPU's utilisation
// (%) and each GPU's power (W), as AIPerf's
// gpu_utilization_and_throughput_over_time pairs them. A panel without
// data is left out; it returns an error when no sample has a utilisation
// or a power.
func GPUOverTime(runID string, reqs []Request, samples []GPUSample) (*Figure, error) {
	util := gpuLines(samples, func(s GPUSample) float64 { return s.Utilization })
	power := gpuLines(samples, func(s GPUSample) float64 { return s.Power })
	if len(util) == 0 && len(power) == 0 {
		return nil, fmt.Errorf("gpu over time: run %s has no GPU reading with a utilisation or a power", runID)
	}
	f := &Figure{}
	lo, hi := math.Inf(1), math.Inf(-1)
	span := func(xys plotter.XYs) {
		for _, xy := range xys {
			lo, hi = math.Min(lo, xy.X), math.Max(hi, xy.X)
		}
	}
	if xys, width := throughputWindows(reqs, 0); len(xys) > 0 {
		span(xys)
		hi = math.Max(hi, xys[len(xys)-1].X+width) // the last window's end
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("gpu over time: %w", err)
		}
		l.StepStyle = plotter.PostStep
		p := gonumplot.New()
		p.Title.Text = "GPU utilisation and power with throughput: " + runID
		p.Y.Label.Text = fmt.Sprintf("output tokens/s (%.3g s windows)", width)
		p.Add(plotter.NewGrid(), l)
		p.Y.Min = 0
		f.Panels = append(f.Panels, p)
	}
	for _, panel := range []struct {
		label string
		lines []gpuLine
	}{{"GPU utilisation (%)", util}, {"GPU power (W)", power}} {
		if len(panel.lines) == 0 {
			continue
		}
		p := gonumplot.New()
		if len(f.Panels) == 0 {
			p.Title.Text = "GPU utilisation and power: " + runID
		}
		p.Y.Label.Text = panel.label
		p.Add(plotter.NewGrid())
		p.Legend.Top = true
		for i, gl := range panel.lines {
			span(gl.xys)
			l, err := plotter.NewLine(gl.xys)
			if err != nil {
				return nil, fmt.Errorf("gpu over time: %w", err)
			}
			l.LineStyle.Color = plotutil.Color(i)
			l.LineStyle.Width = vg.Points(1.5)
			p.Add(l)
			p.Legend.Add(gl.gpu, l)
		}
		// Headroom above the highest value keeps the legend off the lines.
		top := 0.0
		for _, gl := range panel.lines {
			for _, xy := range gl.xys {
				top = math.Max(top, xy.Y)
			}
		}
		p.Y.Min, p.Y.Max = 0, math.Max(1.3*top, 1)
		f.Panels = append(f.Panels, p)
	}
	// One time axis: every panel spans the range of all of them, and only
	// the bottom one is labelled.
	for _, p := range f.Panels {
		p.X.Min, p.X.Max = lo, hi
	}
	f.Panels[len(f.Panels)-1].X.Label.Text = "time (s since first request)"
	return f, nil
}

// gpuLine is one GPU's series of a panel.
type gpuLine struct {
	gpu string
	xys plotter.XYs
}

// gpuLines groups the finite values of samples by GPU, in time order,
// GPUs in name order.
func gpuLines(samples []GPUSample, get func(GPUSample) float64) []gpuLine {
	by := map[string]plotter.XYs{}
	for _, s := range samples {
		if v := get(s); finite(v) && finite(s.Time) {
			by[s.GPU] = append(by[s.GPU], plotter.XY{X: s.Time, Y: v})
		}
	}
	var out []gpuLine
	for _, n := range slices.Sorted(maps.Keys(by)) {
		xys := by[n]
		sort.SliceStable(xys, func(a, b int) bool { return xys[a].X < xys[b].X })
		out = append(out, gpuLine{n, xys})
	}
	return out
}

// loadGPUSamples returns the run's GPU readings over its profiling window
// (those gpu_summary summarises), with Time relative to its first valid
// profiling request's start as loadRequests has it (to its first reading
// when it has none). It returns nothing for a run without telemetry.
func loadGPUSamples(ctx context.Context, db *sql.DB, runID string) ([]GPUSample, error) {
	rows, err := db.QueryContext(ctx, `SELECT g.source_url, g.gpu_index, g.timestamp_ns, g.gpu_utilization, g.gpu_power_usage,
			coalesce((SELECT min(request_start_ns) FROM requests
				WHERE run_id = $1 AND valid AND coalesce(phase, 'profiling') = 'profiling'),
				min(g.timestamp_ns) OVER ()) AS origin,
			count(DISTINCT g.source_url) OVER () AS sources
		FROM gpu_telemetry g
		JOIN gpu_summary s ON s.run_id = g.run_id AND s.source_url IS NOT DISTINCT FROM g.source_url
			AND s.gpu_index IS NOT DISTINCT FROM g.gpu_index AND s.gpu_uuid IS NOT DISTINCT FROM g.gpu_uuid
		WHERE g.run_id = $1 AND g.ts BETWEEN s.first_ts AND s.last_ts
		ORDER BY g.timestamp_ns`, runID)
	if err != nil {
		return nil, fmt.Errorf("load gpu telemetry of %s: %w", runID, err)
	}
	defer rows.Close()
	var out []GPUSample
	for rows.Next() {
		var source sql.NullString
		var index sql.NullInt64
		var ts, origin, sources int64
		var util, power sql.NullFloat64
		if err := rows.Scan(&source, &index, &ts, &util, &power, &origin, &sources); err != nil {
			return nil, fmt.Errorf("load gpu telemetry of %s: %w", runID, err)
		}
		name := "GPU"
		if index.Valid {
			name = fmt.Sprintf("GPU %d", index.Int64)
		}
		if sources > 1 {
			host := source.String
			if u, err := url.Parse(source.String); err == nil && u.Host != "" {
				host = u.Host
			}
			name += " " + host
		}
		out = append(out, GPUSample{GPU: name, Time: float64(ts-origin) / 1e9, Utilization: orNaN(util), Power: orNaN(power)})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load gpu telemetry of %s: %w", runID, err)
	}
	return out, nil
}
