package export

import (
	"io"
	"strconv"

	"github.com/aiperf-go/aiperf/metrics/timeslice"
)

// WriteTimeslicesJSON14 writes profile_export_aiperf_timeslices.json as
// AIPerf 0.13 (schema 1.4) does: {"timeslices": [{"start_ns": …,
// "end_ns": …, "<tag>": {stats}, ...}, ...], "input_config": {...}},
// orjson-indented by two spaces with no trailing newline. A slice's place
// in the array is its index (0.13 writes no timeslice_index); start_ns and
// end_ns are wall-clock Unix nanoseconds, wall converting the records'
// monotonic clock (record.Clock.Wall); a window clipped to the run's last
// activity has "is_complete": false, a full one none (exclude_none). Every
// metric of the slice, totals and sweeps included, is written in the
// summary's order as the 1.4 summary writes it (exclude_none, with count and
// sum). inputConfig is written as WriteTimeslicesJSON writes it; the caller
// passes 0.13's input_config.
func WriteTimeslicesJSON14(w io.Writer, windows []timeslice.Slice, wall func(ns int64) int64, inputConfig any) error {
	return writeTimeslicesJSON(w, windows, inputConfig, func(iw *indentWriter, s *timeslice.Slice) {
		appendTimeslice14(iw, s, wall)
	})
}

// appendTimeslice14 writes one element of "timeslices" at depth 2 in 0.13's
// TimesliceData layout.
func appendTimeslice14(iw *indentWriter, s *timeslice.Slice, wall func(int64) int64) {
	iw.b = append(iw.b, '{')
	iw.key(true, 3, "start_ns")
	iw.b = strconv.AppendInt(iw.b, wall(s.Start), 10)
	iw.key(false, 3, "end_ns")
	iw.b = strconv.AppendInt(iw.b, wall(s.End), 10)
	if s.Partial {
		iw.key(false, 3, "is_complete")
		iw.b = append(iw.b, "false"...)
	}
	if s.Summary != nil {
		for i := range s.Summary.Results {
			r := &s.Summary.Results[i]
			iw.key(false, 3, r.Tag)
			appendStats14At(iw, r, 3)
		}
	}
	iw.newline(2)
	iw.b = append(iw.b, '}')
}
