package plot

import (
	"math"
	"reflect"
	"testing"

	gonumplot "gonum.org/v1/plot"
)

func ids(ps []Point) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.RunID)
	}
	return out
}

func TestFrontier(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name   string
		points []Point
		want   []string // run ids, by X
	}{
		{"none", nil, nil},
		{"one", []Point{{RunID: "a", X: 10, Y: 100}}, []string{"a"}},
		{
			// b is faster and higher than c; a is fastest; d has the most throughput.
			"staircase",
			[]Point{
				{RunID: "a", X: 10, Y: 100},
				{RunID: "b", X: 20, Y: 300},
				{RunID: "c", X: 25, Y: 250},
				{RunID: "d", X: 40, Y: 500},
				{RunID: "e", X: 50, Y: 400},
			},
			[]string{"a", "b", "d"},
		},
		{
			// A point with the same X and a lower Y is dominated, as is one
			// with the same Y and a higher X.
			"ties dominate",
			[]Point{
				{RunID: "a", X: 10, Y: 100},
				{RunID: "b", X: 10, Y: 90},
				{RunID: "c", X: 20, Y: 100},
			},
			[]string{"a"},
		},
		{
			"equal points are both kept",
			[]Point{{RunID: "b", X: 10, Y: 100}, {RunID: "a", X: 10, Y: 100}, {RunID: "c", X: 5, Y: 50}},
			[]string{"c", "a", "b"},
		},
		{
			"one point dominates all",
			[]Point{{RunID: "a", X: 30, Y: 1}, {RunID: "b", X: 1, Y: 30}, {RunID: "c", X: 2, Y: 2}},
			[]string{"b"},
		},
		{
			"NaN and Inf ignored",
			[]Point{{RunID: "a", X: nan, Y: 1000}, {RunID: "b", X: 5, Y: 5}, {RunID: "c", X: 1, Y: math.Inf(1)}},
			[]string{"b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(Frontier(tt.points)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Frontier = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParetoNeedsAPoint(t *testing.T) {
	if _, err := Pareto([]Point{{RunID: "a", X: math.NaN(), Y: 1}}, "x", "y"); err == nil {
		t.Fatal("want an error for no finite point")
	}
	p, err := Pareto([]Point{{RunID: "a", Group: "m1", X: 1, Y: 2}, {RunID: "b", Group: "m2", X: 2, Y: 3}}, "x", "y")
	if err != nil {
		t.Fatal(err)
	}
	if p.Plot.X.Label.Text != "x" || p.Plot.Y.Label.Text != "y" {
		t.Errorf("labels %q %q", p.Plot.X.Label.Text, p.Plot.Y.Label.Text)
	}
}

func TestRunCharts(t *testing.T) {
	reqs := []Request{{Start: 0, TTFT: 10, Latency: 50}, {Start: 1, TTFT: math.NaN(), Latency: 70}}
	if _, err := TTFTOverTime("r", reqs); err != nil {
		t.Fatal(err)
	}
	if _, err := TTFTOverTime("r", []Request{{Start: 0, TTFT: math.NaN(), Latency: 1}}); err == nil {
		t.Error("want an error for no TTFT")
	}
	if _, err := LatencyHistogram("r", reqs, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := LatencyHistogram("r", nil, 0); err == nil {
		t.Error("want an error for no latency")
	}
}

func TestFileBase(t *testing.T) {
	for in, want := range map[string]string{
		"20261122T035800Z-1a2b3c4d": "20261122T035800Z-1a2b3c4d",
		"aiperf-x/../y":             "aiperf-x_.._y",
		"..":                        "run",
		"a b":                       "a_b",
	} {
		if got := fileBase(in); got != want {
			t.Errorf("fileBase(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestThroughputWindows checks output tokens/s per window by hand: with
// 1 s windows, a request ending at 0.5 s with 10 tokens and one ending at
// 1.2 s with 20 tokens give 10 and 20 tokens/s; a request without an OSL
// or a latency is left out.
func TestThroughputWindows(t *testing.T) {
	nan := math.NaN()
	reqs := []Request{
		{Start: 0, Latency: 500, OSL: 10},
		{Start: 0.2, Latency: 1000, OSL: 20},
		{Start: 0.3, Latency: nan, OSL: 99},
		{Start: 0.4, Latency: 100, OSL: nan},
	}
	xys, width := throughputWindows(reqs, 1)
	if width != 1 || len(xys) != 2 || xys[0].X != 0 || xys[0].Y != 10 || xys[1].X != 1 || xys[1].Y != 20 {
		t.Fatalf("windows %v width %v", xys, width)
	}
	// Default width: a twentieth of the run (1.2 s / 20 = 0.06 s), at least 0.1 s.
	if _, width := throughputWindows(reqs, 0); width != 0.1 {
		t.Fatalf("default width %v", width)
	}
	if xys, _ := throughputWindows([]Request{{Start: 0, Latency: 1, OSL: nan}}, 1); xys != nil {
		t.Fatal("no OSL must give no windows")
	}
	for name, f := range map[string]func(string, []Request) (*gonumplot.Plot, error){"itl": ITLOverTime, "isl-osl": ISLvsOSL} {
		none := []Request{{Start: 0, TTFT: nan, ITL: nan, Latency: nan, ISL: nan, OSL: nan}}
		if _, err := f("r", none); err == nil {
			t.Errorf("%s: no data must be an error", name)
		}
		full := []Request{{Start: 0, ITL: 5, ISL: 100, OSL: 10}}
		if p, err := f("r", full); err != nil || p == nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestFrontierMax: with both axes maximised, a point is dominated by one
// that is at least as good on both and better on one.
func TestFrontierMax(t *testing.T) {
	pts := []Point{
		{RunID: "a", X: 10, Y: 100}, // best per-user, lowest total
		{RunID: "b", X: 8, Y: 150},
		{RunID: "c", X: 7, Y: 140}, // dominated by b
		{RunID: "d", X: 2, Y: 300}, // highest total
		{RunID: "e", X: 2, Y: 200}, // dominated by d
		{RunID: "f", X: math.NaN(), Y: 999},
	}
	var ids []string
	for _, p := range FrontierMax(pts) {
		ids = append(ids, p.RunID)
	}
	if want := []string{"d", "b", "a"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("frontier %v, want %v", ids, want)
	}
	if p, err := ParetoMax(pts, "per user", "total"); err != nil || p == nil {
		t.Fatal(err)
	}
}
