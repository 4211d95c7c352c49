package runner

import (
	"fmt"
	"runtime"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// Validity says whether the client kept its promise (issue 6, beyond
// AIPerf): how late the schedule ran, the rate achieved against the rate
// asked for, the client's own CPU use, and latency measured from each
// request's intended send time next to the usual latency. A run whose
// lateness p99 exceeded the threshold, or whose client used (nearly) all the
// CPU it had, is Degraded, with the reasons.
type Validity struct {
	Degraded bool     `json:"degraded"`
	Reasons  []string `json:"reasons,omitempty"`
	// Schedule lateness of the sends (ms): actual send minus intended send;
	// absent in concurrency mode, which has no schedule.
	LatenessP50MS *float64 `json:"schedule_lateness_p50_ms,omitempty"`
	LatenessP99MS *float64 `json:"schedule_lateness_p99_ms,omitempty"`
	LatenessMaxMS *float64 `json:"schedule_lateness_max_ms,omitempty"`
	// RequestedRate is the asked-for rate (req/s; 0 in concurrency and
	// fixed-schedule modes); AchievedRate is profiling requests over the
	// span from the first to the last send.
	RequestedRate float64 `json:"requested_rate,omitempty"`
	AchievedRate  float64 `json:"achieved_rate"`
	// ClientCPUPercent is the process's CPU time over the run's wall time,
	// as a percent of all CPUs (100 = every core busy).
	ClientCPUPercent float64 `json:"client_cpu_percent"`
	CPUs             int     `json:"cpus"`
	// Latency from the intended send time (coordinated-omission corrected)
	// and the usual request latency, over the valid profiling requests (ms).
	IntendedLatencyP50MS float64 `json:"intended_latency_p50_ms"`
	IntendedLatencyP99MS float64 `json:"intended_latency_p99_ms"`
	RequestLatencyP50MS  float64 `json:"request_latency_p50_ms"`
	RequestLatencyP99MS  float64 `json:"request_latency_p99_ms"`
}

// cpuSaturated is the share of all CPUs above which the client itself may
// have been the bottleneck.
const cpuSaturated = 0.9

// validityTracker collects what Validity needs from the profiling records.
// It is used by the record consumer goroutine only.
type validityTracker struct {
	intended, latency   metrics.Distribution // ms; flat memory past its cap
	firstSend, lastSend int64
	count               int
}

// add notes one profiling record.
func (v *validityTracker) add(rec *record.Record) {
	if rec.StartNS == 0 {
		return
	}
	if v.count == 0 || rec.StartNS < v.firstSend {
		v.firstSend = rec.StartNS
	}
	v.lastSend = max(v.lastSend, rec.StartNS)
	v.count++
	if rec.Error != nil || len(rec.Responses) == 0 {
		return
	}
	end := rec.Responses[len(rec.Responses)-1].PerfNS
	lat := float64(end-rec.StartNS) / 1e6
	v.latency.Add(lat)
	issued := rec.CreditIssuedNS
	if issued == 0 || issued > rec.StartNS {
		issued = rec.StartNS
	}
	v.intended.Add(float64(end-issued) / 1e6)
}

// result computes the Validity of a run from its tracker, the lateness
// samples, the elapsed wall time and the CPU the process used.
func (v *validityTracker) result(cfg *Config, lateNS []int64, elapsed, cpu time.Duration) *Validity {
	out := &Validity{CPUs: runtime.NumCPU()}
	switch cfg.Mode() {
	case ModeRequestRate:
		out.RequestedRate = cfg.RequestRate
	case ModeUserCentric:
		out.RequestedRate = cfg.UserCentricRate
	}
	if v.count > 1 && v.lastSend > v.firstSend {
		out.AchievedRate = float64(v.count-1) / (float64(v.lastSend-v.firstSend) / 1e9)
	}
	if elapsed > 0 {
		out.ClientCPUPercent = 100 * cpu.Seconds() / elapsed.Seconds() / float64(out.CPUs)
	}
	if v.latency.Len() > 0 {
		p := v.intended.Percentiles(50, 99)
		out.IntendedLatencyP50MS, out.IntendedLatencyP99MS = p[0], p[1]
		p = v.latency.Percentiles(50, 99)
		out.RequestLatencyP50MS, out.RequestLatencyP99MS = p[0], p[1]
	}
	if len(lateNS) > 0 {
		p50, p99, mx := latenessMS(lateNS)
		out.LatenessP50MS, out.LatenessP99MS, out.LatenessMaxMS = &p50, &p99, &mx
		if limit := float64(cfg.LatenessThreshold) / 1e6; cfg.LatenessThreshold > 0 && p99 > limit {
			out.Reasons = append(out.Reasons, fmt.Sprintf("schedule lateness p99 %.2f ms exceeds %.2f ms: the client could not send on time", p99, limit))
		}
	}
	if out.ClientCPUPercent >= 100*cpuSaturated {
		out.Reasons = append(out.Reasons, fmt.Sprintf("the client used %.0f%% of the machine's %d CPUs: it may have been the bottleneck", out.ClientCPUPercent, out.CPUs))
	}
	out.Degraded = len(out.Reasons) > 0
	return out
}

// consoleLines renders the validity for the console, after the table.
func (v *Validity) consoleLines() []string {
	var lines []string
	if v.Degraded {
		lines = append(lines, "Run DEGRADED:")
		for _, r := range v.Reasons {
			lines = append(lines, "  - "+r)
		}
	} else {
		lines = append(lines, "Run validity: OK")
	}
	if v.LatenessP99MS != nil {
		lines = append(lines, fmt.Sprintf("  schedule lateness (ms): p50 %.3f  p99 %.3f  max %.3f", *v.LatenessP50MS, *v.LatenessP99MS, *v.LatenessMaxMS))
	}
	if v.RequestedRate > 0 {
		lines = append(lines, fmt.Sprintf("  request rate: achieved %.2f of %.2f req/s", v.AchievedRate, v.RequestedRate))
	}
	lines = append(lines, fmt.Sprintf("  client CPU: %.1f%% of %d CPUs", v.ClientCPUPercent, v.CPUs))
	lines = append(lines, fmt.Sprintf("  latency from intended send (ms): p50 %.2f  p99 %.2f   (request latency p50 %.2f  p99 %.2f)",
		v.IntendedLatencyP50MS, v.IntendedLatencyP99MS, v.RequestLatencyP50MS, v.RequestLatencyP99MS))
	return lines
}
