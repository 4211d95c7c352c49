package verdict

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		expr   string
		metric string
		stat   string
		op     Op
		value  float64
		unit   string
	}{
		{"time_to_first_token.p99<300", "time_to_first_token", "p99", Less, 300, "ms"},
		{"request_throughput.avg>50", "request_throughput", "avg", Greater, 50, "requests/sec"},
		{"request_throughput>50", "request_throughput", "avg", Greater, 50, "requests/sec"},
		{"error_request_count<1", "error_request_count", "avg", Less, 1, "requests"},
		{" inter_token_latency.p50 <= 12.5 ", "inter_token_latency", "p50", LessEqual, 12.5, "ms"},
		{"request_latency.max>=1e3", "request_latency", "max", GreaterEqual, 1000, "ms"},
		{"request_count==100", "request_count", "avg", Equal, 100, "requests"},
		{"request_latency.std != 0", "request_latency", "std", NotEqual, 0, "ms"},
		{"output_sequence_length.min>-1", "output_sequence_length", "min", Greater, -1, "tokens"},
	} {
		got, err := Parse(tt.expr)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.expr, err)
			continue
		}
		if got.Metric != tt.metric || got.Stat != tt.stat || got.Op != tt.op || got.Value != tt.value || got.Unit != tt.unit || got.Expr != tt.expr {
			t.Errorf("Parse(%q) = %+v", tt.expr, got)
		}
	}
}

func TestParseEveryStat(t *testing.T) {
	for _, stat := range Stats {
		got, err := Parse("request_latency." + stat + "<1")
		if err != nil || got.Stat != stat {
			t.Errorf("stat %s: %+v %v", stat, got, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct {
		expr string
		err  error
		want []string
	}{
		{"ttft.p99<300", ErrUnknownMetric, []string{`"ttft"`, "time_to_first_token", "request_throughput"}},
		{"time_to_first_token.p98<300", ErrUnknownStat, []string{`"p98"`, "avg, min, max, std, p1, p5"}},
		{"time_to_first_token.median<300", ErrUnknownStat, []string{"p50"}},
		{"request_throughput.p99>5", ErrUnknownStat, []string{"single value", "request_throughput.avg"}},
		{"time_to_first_token.p99", ErrComparator, []string{"<, <=, >, >=, ==, !="}},
		{"time_to_first_token.p99=300", ErrComparator, []string{"<, <="}},
		{"time_to_first_token.p99=<300", ErrComparator, nil},
		{"time_to_first_token.p99<>300", ErrComparator, nil},
		{"time_to_first_token.p99!300", ErrComparator, nil},
		{"time_to_first_token.p99<abc", ErrValue, []string{`"abc"`, "ms"}},
		{"time_to_first_token.p99<", ErrValue, nil},
		{"time_to_first_token.p99<NaN", ErrValue, nil},
		{"time_to_first_token.p99<inf", ErrValue, nil},
		{"time_to_first_token.p99<300ms", ErrValue, []string{"display unit"}},
		{"", ErrComparator, nil},
	} {
		_, err := Parse(tt.expr)
		if !errors.Is(err, tt.err) {
			t.Errorf("Parse(%q) = %v, want %v", tt.expr, err, tt.err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Parse(%q) error %q lacks %q", tt.expr, err, w)
			}
		}
	}
}

func TestParseAllJoinsErrors(t *testing.T) {
	ts, err := ParseAll([]string{"request_count>1", "bogus<1", "request_latency.p9<1"})
	if len(ts) != 1 || !errors.Is(err, ErrUnknownMetric) || !errors.Is(err, ErrUnknownStat) {
		t.Fatalf("%v %v", ts, err)
	}
	if !strings.Contains(err.Error(), `"bogus<1"`) {
		t.Fatalf("error does not name the expression: %v", err)
	}
}

func TestOpHolds(t *testing.T) {
	for _, tt := range []struct {
		op                 Op
		below, equal, over bool // actual 1, 2, 3 against 2
	}{
		{Less, true, false, false},
		{LessEqual, true, true, false},
		{Greater, false, false, true},
		{GreaterEqual, false, true, true},
		{Equal, false, true, false},
		{NotEqual, true, false, true},
	} {
		if got := [3]bool{tt.op.Holds(1, 2), tt.op.Holds(2, 2), tt.op.Holds(3, 2)}; got != [3]bool{tt.below, tt.equal, tt.over} {
			t.Errorf("%s: %v", tt.op, got)
		}
		if tt.op.Holds(math.NaN(), 2) {
			t.Errorf("%s holds for NaN", tt.op)
		}
	}
	if Op("~").Holds(1, 1) {
		t.Error("unknown op holds")
	}
}

func TestStringRoundTrip(t *testing.T) {
	th, err := Parse("time_to_first_token.p99 < 300.5")
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse(th.String())
	if err != nil || again.Metric != th.Metric || again.Stat != th.Stat || again.Op != th.Op || again.Value != th.Value {
		t.Fatalf("%q -> %+v %v", th.String(), again, err)
	}
}

// FuzzParse: Parse never panics, an accepted expression has a known
// metric, stat and comparator and a finite value, and its canonical form
// parses back to the same threshold.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"time_to_first_token.p99<300", "request_throughput.avg>50", "error_request_count<1",
		"request_latency.std!=0", "x.y==1", "<", "a.b.c<=1e309", "request_count>=-0", ".p99<1", "time_to_first_token.<1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		th, err := Parse(expr)
		if err != nil {
			return
		}
		if !slices.Contains(ops, th.Op) || !slices.Contains(Stats, th.Stat) || math.IsNaN(th.Value) || math.IsInf(th.Value, 0) {
			t.Fatalf("Parse(%q) accepted %+v", expr, th)
		}
		again, err := Parse(th.String())
		if err != nil || again.Metric != th.Metric || again.Stat != th.Stat || again.Op != th.Op || again.Value != th.Value {
			t.Fatalf("Parse(%q) = %+v; its form %q gives %+v, %v", expr, th, th.String(), again, err)
		}
	})
}
