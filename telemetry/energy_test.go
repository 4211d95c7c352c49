package telemetry

import (
	"reflect"
	"testing"

	"github.com/aiperf-go/aiperf/metrics"
)

// energySummary is a run's results as EnergyEfficiency reads them.
func energySummary(vals map[string]float64) *metrics.Summary {
	s := &metrics.Summary{}
	for _, tag := range []string{"request_throughput", "request_latency", "request_count", "output_token_throughput",
		"total_isl", "total_osl", "goodput"} {
		if v, ok := vals[tag]; ok {
			s.Results = append(s.Results, metrics.Result{Tag: tag, Scalar: true, Avg: v})
		}
	}
	return s
}

// TestEnergyEfficiency checks AIPerf 0.13's energy metrics against values
// worked out by hand from its EnergyEfficiencyAnalyzer's formulas.
func TestEnergyEfficiency(t *testing.T) {
	run := map[string]float64{"total_osl": 128, "total_isl": 320, "request_count": 16, "request_latency": 40,
		"request_throughput": 32, "output_token_throughput": 256}
	with := func(extra map[string]float64, drop ...string) map[string]float64 {
		out := map[string]float64{}
		for k, v := range run {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		for _, k := range drop {
			delete(out, k)
		}
		return out
	}
	type kv = map[string]float64
	for _, tc := range []struct {
		name        string
		totals      EnergyTotals
		run         map[string]float64
		concurrency int
		want        []string // tags in order
		values      kv
	}{
		{
			name:   "energy counter",
			totals: EnergyTotals{PowerW: 200, PowerGPUs: 2, EnergyJ: 100, EnergyGPUs: 2, DurationS: 0.5}, run: run, concurrency: 2,
			want: []string{"nvidia_total_gpu_power", "nvidia_average_gpu_power", "nvidia_total_gpu_energy",
				"nvidia_output_tokens_per_joule", "nvidia_energy_per_output_token", "nvidia_energy_per_total_token",
				"nvidia_energy_per_request", "nvidia_energy_per_user", "nvidia_energy_delay_product",
				"nvidia_performance_per_watt", "nvidia_output_tps_per_watt"},
			values: kv{
				"nvidia_total_gpu_power":         200,
				"nvidia_average_gpu_power":       200,              // 100 J / 0.5 s
				"nvidia_total_gpu_energy":        100,              // the counter
				"nvidia_output_tokens_per_joule": 1.28,             // 128 / 100
				"nvidia_energy_per_output_token": 781.25,           // 100 000 mJ / 128
				"nvidia_energy_per_total_token":  100000.0 / 448.0, // over 320 + 128 tokens
				"nvidia_energy_per_request":      6.25,             // 100 / 16
				"nvidia_energy_per_user":         50,               // 100 / 2
				"nvidia_energy_delay_product":    0.25,             // 6.25 J × 0.040 s
				"nvidia_performance_per_watt":    0.16,             // 32 / 200
				"nvidia_output_tps_per_watt":     1.28,             // 256 / 200
			},
		},
		{
			name:   "power integration without the counter, goodput, no concurrency",
			totals: EnergyTotals{PowerW: 150, PowerGPUs: 1, DurationS: 2}, run: with(kv{"goodput": 3}, "total_osl", "request_latency"),
			want: []string{"nvidia_total_gpu_power", "nvidia_average_gpu_power", "nvidia_total_gpu_energy",
				"nvidia_energy_per_total_token", "nvidia_energy_per_request",
				"nvidia_performance_per_watt", "nvidia_output_tps_per_watt", "nvidia_goodput_per_watt"},
			values: kv{
				"nvidia_average_gpu_power":      150,
				"nvidia_total_gpu_energy":       300,   // 150 W × 2 s
				"nvidia_energy_per_total_token": 937.5, // 300 000 mJ / 320
				"nvidia_energy_per_request":     18.75,
				"nvidia_goodput_per_watt":       0.02, // 3 / 150
			},
		},
		{
			name:   "counter without a window: no average power, nothing per watt",
			totals: EnergyTotals{EnergyJ: 50, EnergyGPUs: 1}, run: run, concurrency: 4,
			want: []string{"nvidia_total_gpu_energy", "nvidia_output_tokens_per_joule", "nvidia_energy_per_output_token",
				"nvidia_energy_per_total_token", "nvidia_energy_per_request", "nvidia_energy_per_user", "nvidia_energy_delay_product"},
			values: kv{"nvidia_energy_per_user": 12.5, "nvidia_energy_delay_product": 3.125 * 0.04},
		},
		{
			name:   "power without a window: its total alone",
			totals: EnergyTotals{PowerW: 80, PowerGPUs: 1}, run: run,
			want: []string{"nvidia_total_gpu_power"},
		},
		{
			name:   "a counter that did not move and no power: nothing",
			totals: EnergyTotals{EnergyGPUs: 2, DurationS: 1}, run: run,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := EnergyEfficiency(tc.totals, energySummary(tc.run), tc.concurrency)
			var tags []string
			for _, r := range got {
				tags = append(tags, r.Tag)
				if !r.Scalar || r.Console || r.Group != EnergyGroup || r.Unit == "" || r.Header == "" {
					t.Errorf("%s: %+v", r.Tag, r)
				}
				if want, ok := tc.values[r.Tag]; ok && !near(r.Avg, want) {
					t.Errorf("%s = %v, want %v", r.Tag, r.Avg, want)
				}
			}
			if !reflect.DeepEqual(tags, tc.want) {
				t.Errorf("tags %v\nwant %v", tags, tc.want)
			}
		})
	}
}

// TestEnergyUnits: the units and headers are 0.13's.
func TestEnergyUnits(t *testing.T) {
	got := map[string]string{}
	for _, r := range EnergyEfficiency(EnergyTotals{PowerW: 1, PowerGPUs: 1, EnergyJ: 1, EnergyGPUs: 1, DurationS: 1},
		energySummary(map[string]float64{"total_osl": 1, "request_count": 1, "request_latency": 1,
			"request_throughput": 1, "output_token_throughput": 1, "goodput": 1}), 1) {
		got[r.Tag] = r.Header + " (" + r.Unit + ")"
	}
	want := map[string]string{
		"nvidia_total_gpu_power":         "Total GPU Power (W)",
		"nvidia_average_gpu_power":       "Average GPU Power (W)",
		"nvidia_total_gpu_energy":        "Total GPU Energy (J)",
		"nvidia_output_tokens_per_joule": "Output Tokens per Joule (tokens/J)",
		"nvidia_energy_per_output_token": "Energy per Output Token (mJ/token)",
		"nvidia_energy_per_total_token":  "Energy per Total Token (mJ/token)",
		"nvidia_energy_per_request":      "Energy per Request (joules/request)",
		"nvidia_energy_per_user":         "Energy per User (joules/user)",
		"nvidia_energy_delay_product":    "Energy Delay Product (J*s)",
		"nvidia_performance_per_watt":    "Performance per Watt (requests/sec/W)",
		"nvidia_output_tps_per_watt":     "Output Tokens per Second per Watt (tokens/sec/W)",
		"nvidia_goodput_per_watt":        "Goodput per Watt (good-req/s/W)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// TestEnergyTotals sums the GPUs of every source: power means up to the
// end (RunAvg), energy increases in joules, and the window without the
// grace.
func TestEnergyTotals(t *testing.T) {
	gpu := func(power float64, runN int, energyMJ float64) GPUInfo {
		g := GPUInfo{Metrics: []GPUMetric{{GPUField: gpuFields[0], RunAvg: power, RunCount: runN}}}
		if energyMJ >= 0 {
			g.Metrics = append(g.Metrics, GPUMetric{GPUField: gpuFields[1], Avg: energyMJ})
		}
		return g
	}
	s := &GPUSummary{StartNS: 1000 * ms, EndNS: 1500*ms + int64(GPUFinalScrapeGrace), Endpoints: []GPUEndpoint{
		{Source: "a", GPUs: []GPUInfo{gpu(100, 3, 2e-5), gpu(50, 0, -1)}}, // the second: no power up to the end, no counter
		{Source: "b", GPUs: []GPUInfo{gpu(70, 1, 3e-5)}},
	}}
	got := s.Totals()
	if want := (EnergyTotals{PowerW: 170, PowerGPUs: 2, EnergyJ: 50, EnergyGPUs: 2, DurationS: 0.5}); !near(got.PowerW, want.PowerW) ||
		got.PowerGPUs != want.PowerGPUs || !near(got.EnergyJ, want.EnergyJ) || got.EnergyGPUs != want.EnergyGPUs || !near(got.DurationS, want.DurationS) {
		t.Errorf("totals %+v, want %+v", got, want)
	}
	if got := (&GPUSummary{EndNS: 5 * ms}).Totals(); got.DurationS != 0 {
		t.Errorf("an open window has a duration: %+v", got)
	}
	if got := (*GPUSummary)(nil).Totals(); got != (EnergyTotals{}) {
		t.Errorf("nil summary: %+v", got)
	}
}
