// Package plot draws charts of stored runs with gonum/plot: a Pareto chart
// of throughput against latency across runs, and per-run charts of TTFT over
// time and of request latency. Render writes them as PNG and SVG files and
// as one self-contained HTML report.
package plot

import (
	"errors"
	"fmt"
	"math"
	"sort"

	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Point is one run on a Pareto chart. X is minimised (a latency, such as
// TTFT p50 in ms) and Y maximised (a throughput, such as output tokens/s).
// Group names the legend entry the point belongs to (the run's model, or
// the value of the label the chart groups by); "" when the run has none.
type Point struct {
	RunID string
	Group string
	X, Y  float64
}

// finite reports whether both coordinates of p are finite numbers.
func (p Point) finite() bool {
	return !math.IsNaN(p.X) && !math.IsInf(p.X, 0) && !math.IsNaN(p.Y) && !math.IsInf(p.Y, 0)
}

// Frontier returns the points that no other point dominates when X is
// minimised and Y maximised, sorted by X then RunID. A point q dominates p
// when q.X <= p.X and q.Y >= p.Y and q differs from p in at least one of
// them; points with equal coordinates are all kept. Points with a NaN or
// infinite coordinate are ignored. It returns nil for no points.
func Frontier(points []Point) []Point {
	var ps []Point
	for _, p := range points {
		if p.finite() {
			ps = append(ps, p)
		}
	}
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].X != ps[j].X {
			return ps[i].X < ps[j].X
		}
		if ps[i].Y != ps[j].Y {
			return ps[i].Y > ps[j].Y
		}
		return ps[i].RunID < ps[j].RunID
	})
	var front []Point
	bestY := math.Inf(-1) // highest Y among points of strictly smaller X
	for i := 0; i < len(ps); {
		// ps[i:j] share one X; ps[i] has the highest Y among them.
		j := i
		for j < len(ps) && ps[j].X == ps[i].X {
			j++
		}
		top := ps[i].Y
		if top > bestY {
			for k := i; k < j && ps[k].Y == top; k++ {
				front = append(front, ps[k])
			}
			bestY = top
		}
		i = j
	}
	return front
}

// Pareto returns a scatter of points, one colour and legend entry per Group
// (groups in name order), with the frontier of Frontier drawn as a line.
// Points with a NaN or infinite coordinate are left out. It returns an
// error when no point is left.
func Pareto(points []Point, xLabel, yLabel string) (*gonumplot.Plot, error) {
	return pareto(points, xLabel, yLabel, Frontier(points), true, "(unknown model)")
}

// ParetoMax is Pareto when X is maximised too (a per-user throughput
// against the total: the interactivity curve), with the frontier of
// FrontierMax; its legend goes top right.
func ParetoMax(points []Point, xLabel, yLabel string) (*gonumplot.Plot, error) {
	return pareto(points, xLabel, yLabel, FrontierMax(points), false, "(unknown model)")
}

// FrontierMax returns the points no other point dominates when both X and
// Y are maximised, sorted by X then RunID (ties as Frontier).
func FrontierMax(points []Point) []Point {
	neg := make([]Point, len(points))
	for i, p := range points {
		neg[i] = p
		neg[i].X = -p.X
	}
	front := Frontier(neg)
	for i := range front {
		front[i].X = -front[i].X
	}
	sort.SliceStable(front, func(i, j int) bool {
		if front[i].X != front[j].X {
			return front[i].X < front[j].X
		}
		return front[i].RunID < front[j].RunID
	})
	return front
}

// pareto draws points by group with front as the frontier line; the legend
// goes in the corner the frontier leaves empty.
func pareto(points []Point, xLabel, yLabel string, front []Point, legendLeft bool, missing string) (*gonumplot.Plot, error) {
	groups := map[string]plotter.XYs{}
	for _, p := range points {
		if p.finite() {
			groups[p.Group] = append(groups[p.Group], plotter.XY{X: p.X, Y: p.Y})
		}
	}
	if len(groups) == 0 {
		return nil, errors.New("pareto: no runs with both metrics")
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)

	p := gonumplot.New()
	p.Title.Text = "Pareto frontier: " + yLabel + " vs " + xLabel
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Add(plotter.NewGrid())
	// The corner beyond the frontier holds no point, so the legend goes there.
	p.Legend.Top, p.Legend.Left = true, legendLeft

	line := make(plotter.XYs, len(front))
	for i, f := range front {
		line[i] = plotter.XY{X: f.X, Y: f.Y}
	}
	l, err := plotter.NewLine(line)
	if err != nil {
		return nil, fmt.Errorf("pareto: frontier: %w", err)
	}
	l.LineStyle.Width = vg.Points(1.5)
	l.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(l)
	p.Legend.Add("Pareto frontier", l)

	for i, name := range names {
		s, err := plotter.NewScatter(groups[name])
		if err != nil {
			return nil, fmt.Errorf("pareto: %s: %w", name, err)
		}
		s.GlyphStyle.Color = plotutil.Color(i)
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		s.GlyphStyle.Radius = vg.Points(4)
		p.Add(s)
		label := name
		if label == "" {
			label = missing
		}
		p.Legend.Add(label, s)
	}
	var xs, ys []float64
	for _, pt := range points {
		if pt.finite() {
			xs, ys = append(xs, pt.X), append(ys, pt.Y)
		}
	}
	pad(&p.X, xs)
	pad(&p.Y, ys)
	return p, nil
}

// pad sets an axis to the range of vs widened by 8% on each side (by 1
// for a single value), so that glyphs do not sit on the border. It
// ignores NaN and infinite values.
func pad(ax *gonumplot.Axis, vs []float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if lo > hi {
		return
	}
	m := 0.08 * (hi - lo)
	if m == 0 {
		m = 1
	}
	ax.Min, ax.Max = lo-m, hi+m
}
