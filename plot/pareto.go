// Package plot draws charts of stored runs with gonum/plot: a Pareto chart
// of throughput against latency across runs, and per-run charts of TTFT over
// time and of request latency. Render writes them as PNG and SVG files and
// as one self-contained HTML report.
package plot

import (
	"fmt"
	"math"
	"sort"

	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
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
	// Sweep orders a group's points along their line (the run's
	// concurrency or request rate; NaN: unknown, last), and Label names it
	// next to the point ("c=8"; "" for none).
	Sweep float64
	Label string
	// Marked flags a run that failed, did not finish or judged itself
	// degraded: drawn as a cross, never on a frontier.
	Marked bool
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

// Pareto returns a chart of points, one colour and legend entry per Group
// (groups in name order, colours from groupColor): each group's points
// joined in order of Sweep and labelled with Label, and each group's
// Frontier drawn dashed. The legend sits right of the data. Points with a
// NaN or infinite coordinate are left out; it returns an error when no
// point is left.
func Pareto(points []Point, xLabel, yLabel string) (*Chart, error) {
	return pareto(points, xLabel, yLabel, Frontier)
}

// ParetoMax is Pareto when X is maximised too (a per-user throughput
// against the total: the interactivity curve), with the frontiers of
// FrontierMax.
func ParetoMax(points []Point, xLabel, yLabel string) (*Chart, error) {
	return pareto(points, xLabel, yLabel, FrontierMax)
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

// pareto draws points by group, each group with its sweep line and its
// frontier (front of the group's unmarked points).
func pareto(points []Point, xLabel, yLabel string, front func([]Point) []Point) (*Chart, error) {
	groups := map[string][]Point{}
	var xs, ys []float64
	for _, p := range points {
		if p.finite() {
			groups[p.Group] = append(groups[p.Group], p)
			xs, ys = append(xs, p.X), append(ys, p.Y)
		}
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("%s vs %s: no run has both", yLabel, xLabel)
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)

	p := gonumplot.New()
	p.Title.Text = yLabel + " vs " + xLabel
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Add(plotter.NewGrid())
	c := &Chart{Plot: p, Legend: gonumplot.NewLegend()}
	anyMarked := false
	for _, name := range names {
		pts := sweepOrder(groups[name])
		col := groupColor(name)
		var all, healthy plotter.XYs
		var labels []string
		for _, pt := range pts {
			all = append(all, plotter.XY{X: pt.X, Y: pt.Y})
			labels = append(labels, pt.Label)
			if !pt.Marked {
				healthy = append(healthy, plotter.XY{X: pt.X, Y: pt.Y})
			}
			anyMarked = anyMarked || pt.Marked
		}
		if len(all) > 1 {
			l, err := plotter.NewLine(all)
			if err != nil {
				return nil, fmt.Errorf("pareto: %s: %w", name, err)
			}
			l.LineStyle.Color, l.LineStyle.Width = col, vg.Points(1)
			p.Add(l)
		}
		var unmarked []Point
		for _, pt := range pts {
			if !pt.Marked {
				unmarked = append(unmarked, pt)
			}
		}
		if f := front(unmarked); len(f) > 1 {
			xys := make(plotter.XYs, len(f))
			for i, pt := range f {
				xys[i] = plotter.XY{X: pt.X, Y: pt.Y}
			}
			l, err := plotter.NewLine(xys)
			if err != nil {
				return nil, fmt.Errorf("pareto: %s frontier: %w", name, err)
			}
			l.LineStyle.Color, l.LineStyle.Width = col, vg.Points(2.5)
			l.LineStyle.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			p.Add(l)
		}
		var thumb *plotter.Scatter
		for _, set := range []struct {
			xys   plotter.XYs
			shape draw.GlyphDrawer
		}{{healthy, draw.CircleGlyph{}}, {markedOf(pts), draw.CrossGlyph{}}} {
			if len(set.xys) == 0 {
				continue
			}
			s, err := plotter.NewScatter(set.xys)
			if err != nil {
				return nil, fmt.Errorf("pareto: %s: %w", name, err)
			}
			s.GlyphStyle.Color, s.GlyphStyle.Shape, s.GlyphStyle.Radius = col, set.shape, vg.Points(4)
			p.Add(s)
			if thumb == nil {
				thumb = s
			}
		}
		if lb, err := plotter.NewLabels(plotter.XYLabels{XYs: all, Labels: labels}); err == nil {
			lb.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(3)}
			for i := range lb.TextStyle {
				lb.TextStyle[i].Color = col
			}
			p.Add(lb)
		}
		c.Legend.Add(name, thumb)
	}
	c.Legend.Add("dashed: group's Pareto frontier")
	if anyMarked {
		c.Legend.Add("×: failed, partial or degraded run")
	}
	pad(&p.X, xs)
	pad(&p.Y, ys)
	return c, nil
}

// sweepOrder returns pts ordered by Sweep (unknown last), then X, then
// RunID: the order of a sweep's line.
func sweepOrder(pts []Point) []Point {
	out := append([]Point(nil), pts...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if an, bn := math.IsNaN(a.Sweep), math.IsNaN(b.Sweep); an != bn {
			return bn
		}
		if a.Sweep != b.Sweep && !math.IsNaN(a.Sweep) {
			return a.Sweep < b.Sweep
		}
		if a.X != b.X {
			return a.X < b.X
		}
		return a.RunID < b.RunID
	})
	return out
}

// markedOf returns the coordinates of the marked points.
func markedOf(pts []Point) plotter.XYs {
	var xys plotter.XYs
	for _, p := range pts {
		if p.Marked {
			xys = append(xys, plotter.XY{X: p.X, Y: p.Y})
		}
	}
	return xys
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
