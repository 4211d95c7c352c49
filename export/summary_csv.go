package export

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/metrics"
)

// csvStatHeader is section 1's header row after "Metric".
const csvStatHeader = "avg,sum,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std"

// WriteSummaryCSV writes profile_export_aiperf.csv as AIPerf does, with CRLF
// line endings: section 1 holds the distribution metrics (header
// "Metric,avg,sum,min,max,p1,...,p99,std"), section 2 after one empty line
// the scalar metrics ("Metric,Value"); each section is sorted by tag and
// names a metric "<Header> (<unit>)", without the unit when it is "count" or
// "requests". Values are printed "%.2f"; NaN and infinities leave the cell
// empty. A section with no metrics is left out with its separator.
func WriteSummaryCSV(w io.Writer, s *metrics.Summary) error {
	var dist, scalar []*metrics.Result
	for i := range s.Results {
		r := &s.Results[i]
		if r.Scalar {
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
		b = append(b, "Metric,"+csvStatHeader+"\r\n"...)
		for _, r := range dist {
			b = appendCSVCell(b, csvLabel(r))
			for _, v := range [...]float64{r.Avg, r.Sum, r.Min, r.Max,
				r.P[0], r.P[1], r.P[2], r.P[3], r.P[4], r.P[5], r.P[6], r.P[7], r.P[8], r.Std} {
				b = append(b, ',')
				b = appendCSVNumber(b, v)
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
			b = appendCSVNumber(b, r.Avg)
			b = append(b, '\r', '\n')
		}
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write summary csv: %w", err)
	}
	return nil
}

// csvLabel names r in the CSV: counts drop their unit ("Request Count").
func csvLabel(r *metrics.Result) string {
	if r.Unit == "count" || r.Unit == "requests" {
		return r.Header
	}
	return label(r, " ")
}

func appendCSVNumber(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return b
	}
	return strconv.AppendFloat(b, v, 'f', 2, 64)
}

// appendCSVCell appends s quoted the way Python's csv module does by default
// (QUOTE_MINIMAL): only when it holds a comma, a quote or a line break, with
// quotes doubled.
func appendCSVCell(b []byte, s string) []byte {
	if !strings.ContainsAny(s, ",\"\r\n") {
		return append(b, s...)
	}
	b = append(b, '"')
	b = append(b, strings.ReplaceAll(s, `"`, `""`)...)
	return append(b, '"')
}
