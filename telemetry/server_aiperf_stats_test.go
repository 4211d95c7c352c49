package telemetry

import (
	"encoding/json"
	"math"
	"os"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// aiperfCase is one series of testdata/server/aiperf_stats_cases.json,
// whose expected statistics AIPerf 0.13's own compute_stats produced
// (aiperf_stats_cases.py).
type aiperfCase struct {
	Name      string        `json:"name"`
	Type      string        `json:"type"`
	TS        []json.Number `json:"ts"`
	Values    []float64     `json:"values"`
	LEs       []string      `json:"les"`
	Snapshots []struct {
		Buckets []float64 `json:"buckets"`
		Sum     float64   `json:"sum"`
		Count   float64   `json:"count"`
	} `json:"snapshots"`
	WindowFrom int            `json:"window_from"`
	SliceS     *float64       `json:"slice_s"`
	Expect     map[string]any `json:"expect"`
}

func loadAIPerfCases(t *testing.T) []aiperfCase {
	t.Helper()
	f, err := os.Open("testdata/server/aiperf_stats_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.UseNumber()
	var cases []aiperfCase
	if err := dec.Decode(&cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestServerStatsMatchAIPerf feeds each series through the accumulator (the
// samples before the window as baseline) and compares every statistic,
// bucket and timeslice with what AIPerf computed from the same series.
func TestServerStatsMatchAIPerf(t *testing.T) {
	for _, c := range loadAIPerfCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			var opts ServerMetricsOptions
			if c.SliceS != nil {
				opts.SliceDuration = time.Duration(*c.SliceS * 1e9)
			}
			acc := NewServerMetrics(opts)
			typ := MetricType(c.Type)
			for i, n := range c.TS {
				ts, err := n.Int64()
				if err != nil {
					t.Fatal(err)
				}
				if i == c.WindowFrom {
					acc.Start(ts)
				}
				var f *dto.MetricFamily
				switch typ {
				case TypeGauge:
					f = gaugeFam(c.Name, c.Values[i])
				case TypeUnknown:
					f = untypedFam(c.Name, c.Values[i])
				case TypeCounter:
					f = counterFam(c.Name+"_total", c.Values[i])
				case TypeHistogram:
					bounds := make([]float64, len(c.LEs))
					for j, le := range c.LEs {
						bounds[j] = parseLE(t, le)
					}
					s := c.Snapshots[i]
					f = histFam(c.Name, bounds, s.Buckets, s.Sum, s.Count)
				}
				acc.Add(serverSample("http://localhost:8000/metrics", ts, f))
			}
			sum := acc.Summary()
			if len(sum.Endpoints) != 1 || len(sum.Endpoints[0].Metrics) != 1 {
				t.Fatalf("summary has %d endpoints: %+v", len(sum.Endpoints), sum.Endpoints)
			}
			m := sum.Endpoints[0].Metrics[0]
			if m.Name != c.Name || m.Type != typ || len(m.Series) != 1 {
				t.Fatalf("metric %q %q with %d series, want %q %q", m.Name, m.Type, len(m.Series), c.Name, typ)
			}
			compareJSON(t, c.Name, c.Expect, seriesJSON(typ, m.Series[0]), 1e-9)
		})
	}
}

func parseLE(t *testing.T, le string) float64 {
	t.Helper()
	var f float64
	if le == "+Inf" {
		return math.Inf(1)
	}
	if err := json.Unmarshal([]byte(le), &f); err != nil {
		t.Fatalf("le %q: %v", le, err)
	}
	return f
}
