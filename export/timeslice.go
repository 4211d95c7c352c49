package export

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/metrics/timeslice"
)

// TimeslicesFileNames returns the names of the timeslice artifacts:
// profile_export_aiperf_timeslices.json and .csv, or PREFIX_timeslices.json
// and .csv with --profile-export-prefix PREFIX.
func TimeslicesFileNames(prefix string) (jsonName, csvName string) {
	base := prefix
	if base == "" {
		base = "profile_export_aiperf"
	}
	return base + "_timeslices.json", base + "_timeslices.csv"
}

// WriteTimeslicesJSON writes profile_export_aiperf_timeslices.json as AIPerf
// does: {"timeslices": [{"timeslice_index": i, "<tag>": {stats}, ...}, ...],
// "input_config": {...}}, indented by two spaces with no trailing newline.
// Every metric of a slice is written in the summary's order; as in the
// summary's undeclared metrics, a scalar one spells out its missing
// statistics as null. inputConfig is written as "input_config" like
// RunInfo.InputConfig (already redacted; a json.RawMessage is re-indented
// with its literals kept); nil or an empty json.RawMessage leaves it out.
func WriteTimeslicesJSON(w io.Writer, windows []timeslice.Slice, inputConfig any) error {
	return writeTimeslicesJSON(w, windows, inputConfig, appendTimeslice)
}

// writeTimeslicesJSON writes the timeslices file of either layout: the
// "timeslices" array, each window written by appendOne at depth 2, then
// "input_config" as WriteTimeslicesJSON describes.
func writeTimeslicesJSON(w io.Writer, windows []timeslice.Slice, inputConfig any, appendOne func(*indentWriter, *timeslice.Slice)) error {
	iw := &indentWriter{b: make([]byte, 0, 4096*(len(windows)+1))}
	iw.b = append(iw.b, '{')
	iw.key(true, 1, "timeslices")
	if len(windows) == 0 {
		iw.b = append(iw.b, '[', ']')
	} else {
		iw.b = append(iw.b, '[')
		for i := range windows {
			if i > 0 {
				iw.b = append(iw.b, ',')
			}
			iw.newline(2)
			appendOne(iw, &windows[i])
		}
		iw.newline(1)
		iw.b = append(iw.b, ']')
	}
	if raw, ok := inputConfig.(json.RawMessage); ok && len(raw) == 0 {
		inputConfig = nil
	}
	if inputConfig != nil {
		iw.key(false, 1, "input_config")
		if err := iw.encodeValue(reflect.ValueOf(inputConfig), 1); err != nil {
			return fmt.Errorf("input_config: %w", err)
		}
	}
	iw.newline(0)
	iw.b = append(iw.b, '}')
	if _, err := w.Write(iw.b); err != nil {
		return fmt.Errorf("write timeslices json: %w", err)
	}
	return nil
}

// appendTimeslice writes one element of "timeslices" at depth 2.
func appendTimeslice(iw *indentWriter, s *timeslice.Slice) {
	iw.b = append(iw.b, '{')
	iw.key(true, 3, "timeslice_index")
	iw.b = strconv.AppendInt(iw.b, int64(s.Index), 10)
	if s.Summary != nil {
		for i := range s.Summary.Results {
			r := &s.Summary.Results[i]
			iw.key(false, 3, r.Tag)
			appendStatsAt(iw, r, 3)
		}
	}
	iw.newline(2)
	iw.b = append(iw.b, '}')
}

// appendStatsAt writes r's stats block as a member value at depth, with a
// scalar's missing statistics as null.
func appendStatsAt(iw *indentWriter, r *metrics.Result, depth int) {
	iw.b = append(iw.b, '{')
	iw.key(true, depth+1, "unit")
	iw.b = pyjson.AppendString(iw.b, r.Unit)
	vals := statValues(r)
	for i, name := range statNames {
		iw.key(false, depth+1, name)
		if r.Scalar && i > 0 {
			iw.b = append(iw.b, "null"...)
			continue
		}
		iw.b = pyjson.AppendFloat(iw.b, vals[i])
	}
	iw.newline(depth)
	iw.b = append(iw.b, '}')
}

// timesliceStats are the statistics of the tidy CSV, in AIPerf's STAT_KEYS
// order (the summary CSV's columns).
var timesliceStats = strings.Split(csvStatHeader, ",")

// WriteTimeslicesCSV writes profile_export_aiperf_timeslices.csv as AIPerf
// does, in tidy (long) form with CRLF line endings: the header
// "Timeslice,Metric,Unit,Stat,Value", then for each slice and each of its
// metrics, sorted by tag, one row per statistic the metric has (a scalar
// metric only avg; a distribution avg, sum, min, max, p1 ... p99, std).
// Metric is the header without the unit, Unit the display unit, Value
// "%.2f" (empty for NaN or an infinity, as in the summary CSV).
func WriteTimeslicesCSV(w io.Writer, windows []timeslice.Slice) error {
	b := make([]byte, 0, 4096*(len(windows)+1))
	b = append(b, "Timeslice,Metric,Unit,Stat,Value\r\n"...)
	var byTag []*metrics.Result
	for i := range windows {
		s := &windows[i]
		if s.Summary == nil {
			continue
		}
		byTag = byTag[:0]
		for j := range s.Summary.Results {
			byTag = append(byTag, &s.Summary.Results[j])
		}
		sortByTag(byTag)
		for _, r := range byTag {
			vals := csvStatValues(r)
			for k, stat := range timesliceStats {
				if r.Scalar && k > 0 {
					break
				}
				b = strconv.AppendInt(b, int64(s.Index), 10)
				b = append(b, ',')
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

func sortByTag(rs []*metrics.Result) {
	slices.SortStableFunc(rs, func(a, b *metrics.Result) int { return strings.Compare(a.Tag, b.Tag) })
}

// csvStatValues returns r's statistics in timesliceStats order.
func csvStatValues(r *metrics.Result) [14]float64 {
	return [14]float64{r.Avg, r.Sum, r.Min, r.Max,
		r.P[0], r.P[1], r.P[2], r.P[3], r.P[4], r.P[5], r.P[6], r.P[7], r.P[8], r.Std}
}
