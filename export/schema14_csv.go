package export

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/metrics"
)

// csvStatNames14 are section 1's columns after "Metric" in AIPerf 0.13's CSV
// (its STAT_KEYS): sum moved after max.
var csvStatNames14 = [...]string{"avg", "min", "max", "sum", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std"}

// WriteSummaryCSV14 writes profile_export_aiperf.csv as AIPerf 0.13 (schema
// 1.4) does: like WriteSummaryCSV, but section 1's header is
// "Metric,avg,min,max,sum,p1,...,p99,std", a statistic the result lacks
// (r.Missing, or sum with no values) leaves its cell empty, and section 1
// holds every result that has a percentile.
func WriteSummaryCSV14(w io.Writer, s *metrics.Summary) error {
	var dist, scalar []*metrics.Result
	for i := range s.Results {
		r := &s.Results[i]
		if r.Scalar || !hasPercentile(r) {
			scalar = append(scalar, r)
		} else {
			dist = append(dist, r)
		}
	}
	byTag := func(a, b *metrics.Result) int { return strings.Compare(a.Tag, b.Tag) }
	slices.SortStableFunc(dist, byTag)
	slices.SortStableFunc(scalar, byTag)

	b := make([]byte, 0, 4096)
	if len(dist) > 0 {
		b = append(b, "Metric,"+strings.Join(csvStatNames14[:], ",")+"\r\n"...)
		for _, r := range dist {
			b = appendCSVCell(b, csvLabel(r))
			vals := [...]float64{r.Avg, r.Min, r.Max, r.Sum,
				r.P[0], r.P[1], r.P[2], r.P[3], r.P[4], r.P[5], r.P[6], r.P[7], r.P[8], r.Std}
			for i, name := range csvStatNames14 {
				b = append(b, ',')
				if slices.Contains(r.Missing, name) || (name == "sum" && r.Count == 0) {
					continue
				}
				b = appendCSVNumber(b, vals[i])
			}
			b = append(b, '\r', '\n')
		}
	}
	if len(scalar) > 0 {
		if len(dist) > 0 {
			b = append(b, '\r', '\n')
		}
		b = append(b, "Metric,Value\r\n"...)
		for _, r := range scalar {
			b = appendCSVCell(b, csvLabel(r))
			b = append(b, ',')
			if !slices.Contains(r.Missing, "avg") {
				b = appendCSVNumber(b, r.Avg)
			}
			b = append(b, '\r', '\n')
		}
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write summary csv: %w", err)
	}
	return nil
}

// hasPercentile reports whether r has at least one percentile (0.13's test
// for a CSV section 1 row).
func hasPercentile(r *metrics.Result) bool {
	for _, p := range statNames[1:10] {
		if !slices.Contains(r.Missing, p) {
			return true
		}
	}
	return false
}
