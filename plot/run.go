package plot

import (
	"errors"
	"fmt"
	"math"

	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Request is what the per-run charts need of one request. A metric the
// request does not have (TTFT of a non-streaming run) is NaN.
type Request struct {
	// Start is seconds since the run's first request started.
	Start float64
	// TTFT, ITL and Latency are time to first token, inter-token latency
	// and request latency, in ms.
	TTFT, ITL, Latency float64
	// ISL and OSL are the input and output sequence lengths, in tokens.
	ISL, OSL float64
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// TTFTOverTime returns a scatter of each request's TTFT (ms) against its
// start (s since the run's first request). Requests without a TTFT are
// left out; it returns an error when none has one.
func TTFTOverTime(runID string, reqs []Request) (*gonumplot.Plot, error) {
	return overTime(runID, "TTFT", func(r Request) float64 { return r.TTFT }, reqs)
}

// ITLOverTime is TTFTOverTime for inter-token latency (ms).
func ITLOverTime(runID string, reqs []Request) (*gonumplot.Plot, error) {
	return overTime(runID, "ITL", func(r Request) float64 { return r.ITL }, reqs)
}

// LatencyOverTime is TTFTOverTime for request latency (ms).
func LatencyOverTime(runID string, reqs []Request) (*gonumplot.Plot, error) {
	return overTime(runID, "request latency", func(r Request) float64 { return r.Latency }, reqs)
}

// overTime scatters get(request) in ms against request start, with the y
// axis from zero to show the values' size and not just their spread.
func overTime(runID, name string, get func(Request) float64, reqs []Request) (*gonumplot.Plot, error) {
	var xys plotter.XYs
	for _, r := range reqs {
		if v := get(r); finite(r.Start) && finite(v) {
			xys = append(xys, plotter.XY{X: r.Start, Y: v})
		}
	}
	if len(xys) == 0 {
		return nil, fmt.Errorf("%s over time: run %s has no request with a %s", name, runID, name)
	}
	p, err := scatter(xys, name+" over time: "+runID, "request start (s since first request)", name+" (ms)")
	if err != nil {
		return nil, err
	}
	p.Y.Min = 0
	return p, nil
}

// ISLvsOSL scatters each request's output length against its input length
// (tokens); it returns an error when no request has both.
func ISLvsOSL(runID string, reqs []Request) (*gonumplot.Plot, error) {
	var xys plotter.XYs
	for _, r := range reqs {
		if finite(r.ISL) && finite(r.OSL) {
			xys = append(xys, plotter.XY{X: r.ISL, Y: r.OSL})
		}
	}
	if len(xys) == 0 {
		return nil, fmt.Errorf("isl vs osl: run %s has no request with both lengths", runID)
	}
	return scatter(xys, "ISL vs OSL: "+runID, "input sequence length (tokens)", "output sequence length (tokens)")
}

// ThroughputOverTime plots output tokens per second over the run: each
// request's OSL counts in the window in which it finished (start +
// latency), in windows of width seconds (width <= 0: a twentieth of the
// run, at least 0.1 s).
func ThroughputOverTime(runID string, reqs []Request, width float64) (*gonumplot.Plot, error) {
	xys, width := throughputWindows(reqs, width)
	if len(xys) == 0 {
		return nil, fmt.Errorf("throughput over time: run %s has no request with an output length", runID)
	}
	line, err := plotter.NewLine(xys)
	if err != nil {
		return nil, fmt.Errorf("throughput over time: %w", err)
	}
	line.StepStyle = plotter.PostStep
	p := gonumplot.New()
	p.Title.Text = "Output token throughput over time: " + runID
	p.X.Label.Text = "time (s since first request)"
	p.Y.Label.Text = fmt.Sprintf("output tokens/s (%.3g s windows)", width)
	p.Add(plotter.NewGrid(), line)
	p.Y.Min = 0
	return p, nil
}

// throughputWindows returns output tokens/s per window (X = window start)
// and the window width used; nil when no request has an end and an OSL.
func throughputWindows(reqs []Request, width float64) (plotter.XYs, float64) {
	type done struct{ at, tokens float64 }
	var ends []done
	last := 0.0
	for _, r := range reqs {
		at := r.Start + r.Latency/1000
		if finite(at) && finite(r.OSL) {
			ends = append(ends, done{at, r.OSL})
			last = math.Max(last, at)
		}
	}
	if len(ends) == 0 {
		return nil, width
	}
	if width <= 0 {
		width = math.Max(last/20, 0.1)
	}
	tokens := make([]float64, int(last/width)+1)
	for _, d := range ends {
		tokens[int(d.at/width)] += d.tokens
	}
	xys := make(plotter.XYs, len(tokens))
	for i, c := range tokens {
		xys[i] = plotter.XY{X: float64(i) * width, Y: c / width}
	}
	return xys, width
}

// scatter returns a scatter plot of xys with a grid and padded axes.
func scatter(xys plotter.XYs, title, xLabel, yLabel string) (*gonumplot.Plot, error) {
	p := gonumplot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Add(plotter.NewGrid())
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", title, err)
	}
	s.GlyphStyle.Shape = draw.CircleGlyph{}
	s.GlyphStyle.Radius = vg.Points(2)
	p.Add(s)
	xs, ys := make([]float64, len(xys)), make([]float64, len(xys))
	for i, xy := range xys {
		xs[i], ys[i] = xy.X, xy.Y
	}
	pad(&p.X, xs)
	pad(&p.Y, append(ys, 0))
	return p, nil
}

// LatencyHistogram returns a histogram of request latency (ms) with bins
// equal-width bins between the smallest and largest latency (bins <= 0:
// the square root of the number of requests, rounded up). Requests without
// a latency are left out; it returns an error when none has one.
func LatencyHistogram(runID string, reqs []Request, bins int) (*gonumplot.Plot, error) {
	var vs plotter.Values
	for _, r := range reqs {
		if finite(r.Latency) {
			vs = append(vs, r.Latency)
		}
	}
	if len(vs) == 0 {
		return nil, errors.New("latency histogram: run " + runID + " has no request with a latency")
	}
	if bins <= 0 {
		bins = int(math.Ceil(math.Sqrt(float64(len(vs)))))
	}
	h, err := plotter.NewHist(vs, bins)
	if err != nil {
		return nil, fmt.Errorf("latency histogram: %w", err)
	}
	p := gonumplot.New()
	p.Title.Text = "Request latency: " + runID
	p.X.Label.Text = "request latency (ms)"
	p.Y.Label.Text = "requests"
	p.Add(plotter.NewGrid())
	p.Add(h)
	return p, nil
}
