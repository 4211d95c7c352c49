package export

import (
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/metrics/timeslice"
)

// WriteTimeslicesCSV14 writes profile_export_aiperf_timeslices.csv as AIPerf
// 0.13 (schema 1.4) does (TimesliceMetricsCsvExporter), tidy with CRLF line
// endings: the header "Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value",
// then for each slice and each of its metrics, sorted by tag, one row per
// statistic the metric has, in 0.13's STAT_KEYS order (avg, min, max, sum,
// p1 ... p99, std). Timeslice is the slice's place in the list (0.13
// enumerates its slices, as WriteTimeslicesJSON14 writes them), Start_NS and
// End_NS wall-clock Unix nanoseconds (wall converts the records' monotonic
// clock), Metric the header without the unit, Unit the display unit, Value
// "%.2f". The statistics written are those WriteTimeslicesJSON14 writes: a
// scalar only avg, a distribution those not in r.Missing, sum only with
// values.
func WriteTimeslicesCSV14(w io.Writer, windows []timeslice.Slice, wall func(ns int64) int64) error {
	b := make([]byte, 0, 8192*(len(windows)+1))
	b = append(b, "Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value\r\n"...)
	var byTag []*metrics.Result
	var prefix []byte
	for i := range windows {
		s := &windows[i]
		if s.Summary == nil {
			continue
		}
		prefix = strconv.AppendInt(prefix[:0], int64(i), 10)
		prefix = append(prefix, ',')
		prefix = strconv.AppendInt(prefix, wall(s.Start), 10)
		prefix = append(prefix, ',')
		prefix = strconv.AppendInt(prefix, wall(s.End), 10)
		prefix = append(prefix, ',')
		byTag = byTag[:0]
		for j := range s.Summary.Results {
			byTag = append(byTag, &s.Summary.Results[j])
		}
		sortByTag(byTag)
		for _, r := range byTag {
			vals := [...]float64{r.Avg, r.Min, r.Max, r.Sum,
				r.P[0], r.P[1], r.P[2], r.P[3], r.P[4], r.P[5], r.P[6], r.P[7], r.P[8], r.Std}
			for k, stat := range csvStatNames14 {
				if !hasStat14(r, stat) {
					continue
				}
				b = append(b, prefix...)
				b = appendCSVCell(b, r.Header)
				b = append(b, ',')
				b = appendCSVCell(b, r.Unit)
				b = append(b, ',')
				b = append(b, stat...)
				b = append(b, ',')
				b = appendCSVNumber(b, vals[k])
				b = append(b, '\r', '\n')
			}
		}
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write timeslices csv: %w", err)
	}
	return nil
}

// hasStat14 reports whether r has the statistic stat in 0.13's layout, as
// appendStats14At decides: a scalar has only avg; sum needs values.
func hasStat14(r *metrics.Result, stat string) bool {
	if slices.Contains(r.Missing, stat) {
		return false
	}
	if r.Scalar {
		return stat == "avg"
	}
	return stat != "sum" || r.Count > 0
}
