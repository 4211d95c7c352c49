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
	// TTFT and Latency are time to first token and request latency, in ms.
	TTFT, Latency float64
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// TTFTOverTime returns a scatter of each request's TTFT (ms) against its
// start (s since the run's first request). Requests without a TTFT are
// left out; it returns an error when none has one.
func TTFTOverTime(runID string, reqs []Request) (*gonumplot.Plot, error) {
	var xys plotter.XYs
	for _, r := range reqs {
		if finite(r.Start) && finite(r.TTFT) {
			xys = append(xys, plotter.XY{X: r.Start, Y: r.TTFT})
		}
	}
	if len(xys) == 0 {
		return nil, fmt.Errorf("ttft over time: run %s has no request with a TTFT", runID)
	}
	p := gonumplot.New()
	p.Title.Text = "TTFT over time: " + runID
	p.X.Label.Text = "request start (s since first request)"
	p.Y.Label.Text = "TTFT (ms)"
	p.Add(plotter.NewGrid())
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, fmt.Errorf("ttft over time: %w", err)
	}
	s.GlyphStyle.Shape = draw.CircleGlyph{}
	s.GlyphStyle.Radius = vg.Points(2)
	p.Add(s)
	xs, ys := make([]float64, len(xys)), make([]float64, len(xys))
	for i, xy := range xys {
		xs[i], ys[i] = xy.X, xy.Y
	}
	pad(&p.X, xs)
	// TTFT from zero, to show its size and not just its spread.
	pad(&p.Y, append(ys, 0))
	p.Y.Min = math.Max(p.Y.Min, 0)
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
