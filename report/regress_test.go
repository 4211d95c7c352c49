package report

import (
	"math"
	"testing"
)

func TestParseCheck(t *testing.T) {
	c, err := ParseCheck("time_to_first_token.p99", "10%", "")
	if err != nil || c.Tag != "time_to_first_token" || c.Stat != "p99" || c.MaxIncrease != 0.1 || !math.IsNaN(c.MaxDecrease) {
		t.Fatalf("%+v %v", c, err)
	}
	if c, err := ParseCheck("request_throughput.avg", "", "0.05"); err != nil || c.MaxDecrease != 0.05 {
		t.Fatalf("%+v %v", c, err)
	}
	for _, bad := range [][3]string{{"ttft", "10%", ""}, {"ttft.p98", "10%", ""}, {"ttft.p99", "", ""}, {"ttft.p99", "ten", ""}, {"ttft.p99", "-5%", ""}} {
		if _, err := ParseCheck(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestEvaluate(t *testing.T) {
	c := Check{MaxIncrease: 0.10, MaxDecrease: math.NaN()}
	cases := []struct {
		value    float64
		baseline []float64
		change   float64
		bad      bool
	}{
		{110, []float64{100}, 0.10, false}, // exactly at the bound passes
		{111, []float64{100}, 0.11, true},
		{90, []float64{100}, -0.10, false}, // improvements never fail an increase bound
		{105, []float64{90, 110}, 0.05, false},
	}
	for _, tc := range cases {
		_, change, bad := c.Evaluate(tc.value, tc.baseline)
		if math.Abs(change-tc.change) > 1e-12 || bad != tc.bad {
			t.Errorf("Evaluate(%v, %v) = %v %v, want %v %v", tc.value, tc.baseline, change, bad, tc.change, tc.bad)
		}
	}
	d := Check{MaxIncrease: math.NaN(), MaxDecrease: 0.05}
	if _, _, bad := d.Evaluate(94, []float64{100}); !bad {
		t.Error("a 6% throughput drop passed a 5% decrease bound")
	}
	if _, _, bad := c.Evaluate(1000, nil); bad {
		t.Error("no baseline must not fail")
	}
}
