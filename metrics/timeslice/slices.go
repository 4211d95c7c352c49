package timeslice

import (
	"cmp"
	"slices"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// Slices returns the run's non-empty windows in time order, each with its
// metrics, or nil when no record was added. It follows AIPerf's timeslicing:
//   - the grid starts at the earliest request start of the records (valid or
//     not) and its windows are the slice duration long;
//   - a record belongs to the window its request started in, [Start, End);
//   - the grid ends at the run's last activity, the latest request start or
//     end: the last window is clipped there (Partial) and its throughputs
//     divide by the clipped length;
//   - windows without a record are left out, and Index numbers the others
//     from 0.
//
// Within a window the records are summarised in the order they were added,
// as the run summary does. With Config.Schema14, each window also gets
// AIPerf 0.13's sweep-line results: the whole run's curves clipped to the
// window. Slices does not change the accumulator; it builds
// one window's metrics at a time, so it needs little memory beyond the
// returned summaries.
func (a *Accumulator) Slices() []Slice {
	if len(a.rows) == 0 {
		return nil
	}
	first, last := a.rows[0].start, a.rows[0].start
	for i := range a.rows {
		r := &a.rows[i]
		first = min(first, r.start)
		last = max(last, r.start, r.end)
	}
	window := func(i int32) int64 { return (a.rows[i].start - first) / a.slice }

	// Group the rows by window, keeping the order they were added in.
	order := make([]int32, len(a.rows))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(x, y int32) int { return cmp.Compare(window(x), window(y)) })

	var (
		out []Slice
		rec record.Record
		buf []metrics.RecordValue
		run *metrics.Accumulator // every record, for the sweep-line results
	)
	if a.cfg.Schema14 {
		run = metrics.NewAccumulator(a.cfg)
		for i := range a.rows {
			buf = a.replay(i, &rec, buf)
			run.Add(&rec, buf)
		}
	}
	for lo := 0; lo < len(order); {
		w := window(order[lo])
		hi := lo + 1
		for hi < len(order) && window(order[hi]) == w {
			hi++
		}
		acc := metrics.NewAccumulator(a.cfg)
		for _, i := range order[lo:hi] {
			buf = a.replay(int(i), &rec, buf)
			acc.Add(&rec, buf)
		}
		lo = hi

		s := Slice{Start: first + w*a.slice}
		s.End = s.Start + a.slice
		if s.End > last {
			s.End, s.Partial = last, true
		}
		s.Summary = acc.WindowSummary(nil, s.End-s.Start)
		if len(s.Summary.Results) == 0 {
			continue
		}
		s.Index = len(out)
		out = append(out, s)
	}
	if run != nil && len(out) > 0 {
		// Every slice's sweep-line results from the run's curves, built
		// once for all of them.
		wins := make([][2]int64, len(out))
		for i := range out {
			wins[i] = [2]int64{out[i].Start, out[i].End}
		}
		for i, res := range run.SweepResultsEach(wins) {
			out[i].Summary.Results = append(out[i].Summary.Results, res...)
		}
	}
	return out
}
