package export

import (
	"encoding/json"
	"os"
	"testing"
)

// TestServerMetricUnitMatchesAIPerf compares serverMetricUnit with AIPerf
// 0.13's own infer_unit on names and HELP texts of real servers and
// exporters (testdata/servermetrics/units_cases.py wrote the expectations).
func TestServerMetricUnitMatchesAIPerf(t *testing.T) {
	b, err := os.ReadFile("testdata/servermetrics/units_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ Name, Description, Unit string }
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if got := serverMetricUnit(c.Name, c.Description); got != c.Unit {
			t.Errorf("unit of %s (%q) = %q, want %q", c.Name, c.Description, got, c.Unit)
		}
	}
	if len(cases) < 50 {
		t.Errorf("only %d cases", len(cases))
	}
}
