package multirun

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// priorityMetrics are the headline metrics of the console summary; each
// shows its first available statistic of prioritySuffixes.
var (
	priorityMetrics  = []string{"request_throughput", "time_to_first_token", "inter_token_latency", "request_latency"}
	prioritySuffixes = []string{"avg", "p99", "max", "p50"}
)

// WriteSummary prints AIPerf's "AGGREGATE STATISTICS SUMMARY": run counts,
// failed runs, and for each headline metric its mean, standard deviation,
// min, max, CV and confidence interval, followed by the CV and CI
// interpretation guide.
func WriteSummary(w io.Writer, a *Aggregate) error {
	var b strings.Builder
	line := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
	}
	eq, dash := strings.Repeat("=", 80), strings.Repeat("-", 80)
	level := pyPercent(a.ConfidenceLevel, 0)
	line("")
	line("%s", eq)
	line("AGGREGATE STATISTICS SUMMARY")
	line("%s", eq)
	line("Aggregation Type: confidence")
	line("Total Runs: %d", a.NumRuns)
	line("Successful Runs: %d", len(a.RunLabels))
	if len(a.Failed) > 0 {
		line("Failed Runs (%d):", len(a.Failed))
		for _, f := range a.Failed {
			line("  - %s: %s", f.Label, f.Error)
		}
	}
	line("Confidence Level: %s", level)
	line("")
	line("Key Metrics:")
	line("%s", dash)
	found := 0
	for _, base := range priorityMetrics {
		for _, suffix := range prioritySuffixes {
			m := a.Get(base + "_" + suffix)
			if m == nil {
				continue
			}
			found++
			line("\n%s (%s):", titleWords(base), statTitle(suffix))
			line("  Mean:    %12s %s", pyFixed(m.Mean, 4), m.Unit)
			line("  Std Dev: %12s %s", pyFixed(m.Std, 4), m.Unit)
			line("  Min:     %12s %s", pyFixed(m.Min, 4), m.Unit)
			line("  Max:     %12s %s", pyFixed(m.Max, 4), m.Unit)
			line("  CV:      %12s", pyPercent(m.CV, 2))
			line("  %s CI: [%s, %s] %s", level, pyFixed(m.CILow, 4), pyFixed(m.CIHigh, 4), m.Unit)
			break
		}
	}
	if found == 0 {
		line("No key metrics found in aggregate results")
	}
	line("")
	line("%s", dash)
	line("Coefficient of Variation (CV) Interpretation Guide:")
	line("  CV < 5%%:   Excellent repeatability (low variance)")
	line("  CV 5-10%%:  Good repeatability (moderate variance)")
	line("  CV 10-20%%: Fair repeatability (consider more runs)")
	line("  CV > 20%%:  High variance (investigate or increase runs)")
	line("")
	line("Confidence Interval (CI) Interpretation:")
	line("  The %s CI indicates the range where the true mean", level)
	line("  is likely to fall with %s confidence.", level)
	line("  Narrower intervals indicate more precise estimates.")
	line("%s", eq)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write aggregate summary: %w", err)
	}
	return nil
}

// titleWords is Python's "a_b".replace("_", " ").title() for tags.
func titleWords(tag string) string {
	words := strings.Split(tag, "_")
	for i, w := range words {
		if w != "" {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}

// statTitle names a statistic suffix as AIPerf's summary does: Avg, P99,
// Max, P50.
func statTitle(s string) string {
	if s == "avg" || s == "max" {
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return strings.ToUpper(s)
}

// pyFixed formats v as Python's f"{v:.Nf}": nan, inf and -inf spelled out.
func pyFixed(v float64, decimals int) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// pyPercent formats v as Python's f"{v:.N%}" (v*100, fixed, then "%").
func pyPercent(v float64, decimals int) string {
	return pyFixed(v*100, decimals) + "%"
}
