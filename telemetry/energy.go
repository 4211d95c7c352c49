package telemetry

import (
	"github.com/aiperf-go/aiperf/metrics"
)

// EnergyGroup is the console group of the energy-efficiency results: AIPerf
// 0.13 prints them in a table of their own, "GPU Power Efficiency
// (NVIDIA)", not in the metrics tables.
const EnergyGroup = "gpu_power_efficiency_nvidia"

// energyMetric is one of AIPerf 0.13's NVIDIA energy-efficiency metrics
// (aiperf/metrics/types/power_efficiency_metrics.py).
type energyMetric struct {
	tag, header, unit string
	order             int // display_order, the row order of the console table
}

// The energy-efficiency metrics, as 0.13 tags, heads and orders them.
var (
	energyTotalPower     = energyMetric{"nvidia_total_gpu_power", "Total GPU Power", "W", 740}
	energyAveragePower   = energyMetric{"nvidia_average_gpu_power", "Average GPU Power", "W", 720}
	energyTotalEnergy    = energyMetric{"nvidia_total_gpu_energy", "Total GPU Energy", "J", 730}
	energyTokensPerJoule = energyMetric{"nvidia_output_tokens_per_joule", "Output Tokens per Joule", "tokens/J", 760}
	energyPerOutputToken = energyMetric{"nvidia_energy_per_output_token", "Energy per Output Token", "mJ/token", 750}
	energyPerTotalToken  = energyMetric{"nvidia_energy_per_total_token", "Energy per Total Token", "mJ/token", 745}
	energyPerRequest     = energyMetric{"nvidia_energy_per_request", "Energy per Request", "joules/request", 755}
	energyPerUser        = energyMetric{"nvidia_energy_per_user", "Energy per User", "joules/user", 765}
	energyDelayProduct   = energyMetric{"nvidia_energy_delay_product", "Energy Delay Product", "J*s", 700}
	energyPerfPerWatt    = energyMetric{"nvidia_performance_per_watt", "Performance per Watt", "requests/sec/W", 710}
	energyTPSPerWatt     = energyMetric{"nvidia_output_tps_per_watt", "Output Tokens per Second per Watt", "tokens/sec/W", 712}
	energyGoodputPerWatt = energyMetric{"nvidia_goodput_per_watt", "Goodput per Watt", "good-req/s/W", 714}
)

// joulesPerMJ converts the energy counter's unit (MJ) to joules.
const joulesPerMJ = 1e6

// EnergyTotals are the GPU telemetry inputs of EnergyEfficiency, summed
// over every GPU of every source (a GPU two sources report counts twice,
// as in AIPerf 0.13).
type EnergyTotals struct {
	// PowerW is the sum of the GPUs' mean power over the profiling window
	// without the grace (GPUMetric.RunAvg), over PowerGPUs GPUs.
	PowerW    float64
	PowerGPUs int
	// EnergyJ is the sum of the GPUs' energy counter increases over the
	// window with the grace, in joules, over EnergyGPUs GPUs.
	EnergyJ    float64
	EnergyGPUs int
	// DurationS is the profiling window without the grace, in seconds; 0
	// when the window is not bounded on both sides.
	DurationS float64
}

// Totals returns s's EnergyTotals.
func (s *GPUSummary) Totals() EnergyTotals {
	var t EnergyTotals
	if s == nil {
		return t
	}
	if end := s.EndNS - int64(GPUFinalScrapeGrace); s.StartNS != 0 && s.EndNS != 0 && end > s.StartNS {
		t.DurationS = float64(end-s.StartNS) / 1e9
	}
	for _, e := range s.Endpoints {
		for i := range e.GPUs {
			g := &e.GPUs[i]
			if m := g.Metric("gpu_power_usage"); m != nil && m.RunCount > 0 {
				t.PowerW += m.RunAvg
				t.PowerGPUs++
			}
			if m := g.Metric("energy_consumption"); m != nil {
				t.EnergyJ += m.Avg * joulesPerMJ
				t.EnergyGPUs++
			}
		}
	}
	return t
}

// EnergyEfficiency returns AIPerf 0.13's NVIDIA energy-efficiency metrics
// (its EnergyEfficiencyAnalyzer) of a run whose GPU telemetry totals are t
// and whose other results are s; concurrency is the configured concurrency
// (0 when the run has none). Each is a scalar in EnergyGroup, not in the
// metrics tables, and present only when its inputs are:
//
//   - nvidia_total_gpu_power (W): t.PowerW, with any GPU's power;
//   - total energy E (J): t.EnergyJ when positive, else, with power and a
//     duration, t.PowerW·t.DurationS; nothing below without it;
//   - average power P (W): E/t.DurationS with the counter, t.PowerW
//     without it; present when positive;
//   - nvidia_total_gpu_energy (J): E;
//   - nvidia_output_tokens_per_joule (tokens/J): total_osl/E, and
//     nvidia_energy_per_output_token (mJ/token): 1000·E/total_osl, with a
//     non-zero total_osl;
//   - nvidia_energy_per_total_token (mJ/token): 1000·E/(total_isl+total_osl)
//     when that sum is positive;
//   - nvidia_energy_per_request (joules/request): E/request_count, with a
//     non-zero request_count;
//   - nvidia_energy_per_user (joules/user): E/concurrency;
//   - nvidia_energy_delay_product (J*s): energy per request times the mean
//     request_latency in seconds, with both non-zero;
//   - with P positive, nvidia_performance_per_watt (requests/sec/W):
//     request_throughput/P, nvidia_output_tps_per_watt (tokens/sec/W):
//     output_token_throughput/P, and nvidia_goodput_per_watt
//     (good-req/s/W): goodput/P, each when its numerator is in s.
func EnergyEfficiency(t EnergyTotals, s *metrics.Summary, concurrency int) []metrics.Result {
	avg := func(tag string) (float64, bool) {
		if s == nil {
			return 0, false
		}
		if r := s.Get(tag); r != nil {
			return r.Avg, true
		}
		return 0, false
	}
	var out []metrics.Result
	add := func(m energyMetric, v float64) {
		out = append(out, metrics.Result{Tag: m.tag, Header: m.header, Unit: m.unit, Scalar: true,
			Group: EnergyGroup, DisplayOrder: m.order, Avg: v})
	}
	if t.PowerGPUs > 0 {
		add(energyTotalPower, t.PowerW)
	}
	var energy, power float64
	switch {
	case t.EnergyGPUs > 0 && t.EnergyJ > 0:
		energy = t.EnergyJ
		if t.DurationS > 0 {
			power = energy / t.DurationS
		}
	case t.PowerGPUs > 0 && t.PowerW > 0 && t.DurationS > 0:
		energy, power = t.PowerW*t.DurationS, t.PowerW
	default:
		return out
	}
	if power > 0 {
		add(energyAveragePower, power)
	}
	add(energyTotalEnergy, energy)

	osl, _ := avg("total_osl")
	if osl != 0 {
		add(energyTokensPerJoule, osl/energy)
		add(energyPerOutputToken, energy*1000/osl)
	}
	isl, _ := avg("total_isl")
	if isl+osl > 0 {
		add(energyPerTotalToken, energy*1000/(isl+osl))
	}
	perRequest := 0.0
	if n, _ := avg("request_count"); n != 0 {
		perRequest = energy / n
		add(energyPerRequest, perRequest)
	}
	if concurrency > 0 {
		add(energyPerUser, energy/float64(concurrency))
	}
	if lat, _ := avg("request_latency"); perRequest != 0 && lat != 0 {
		add(energyDelayProduct, perRequest*lat/1000)
	}
	if power <= 0 {
		return out
	}
	for _, pw := range []struct {
		m   energyMetric
		tag string
	}{{energyPerfPerWatt, "request_throughput"}, {energyTPSPerWatt, "output_token_throughput"}, {energyGoodputPerWatt, "goodput"}} {
		if v, ok := avg(pw.tag); ok {
			add(pw.m, v/power)
		}
	}
	return out
}
