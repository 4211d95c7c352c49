package telemetry

import (
	"slices"

	dto "github.com/prometheus/client_model/go"
)

// histPoint is one snapshot of a histogram series: cumulative bucket counts
// in schema order, sum and count.
type histPoint struct {
	ts         int64
	sum, count float64
	b          []float64
}

// set copies o into p, reusing p's bucket slice.
func (p *histPoint) set(o *histPoint) {
	p.ts, p.sum, p.count = o.ts, o.sum, o.count
	p.b = append(p.b[:0], o.b...)
}

// histState summarises a histogram series in memory independent of the run
// length: the base snapshot (the last one before the window, else the first
// in it), the previous and last snapshots, what each bucket learned from
// the intervals between consecutive snapshots from the base on, and for
// timeslices the snapshot at each slice boundary.
type histState struct {
	// bounds and les are the bucket schema, fixed by the first snapshot:
	// upper bounds ascending (+Inf last) and their le texts.
	bounds []float64
	les    []string
	base   histPoint
	baseOK bool
	isRef  bool // base is a snapshot from before the window
	prev   histPoint
	last   histPoint
	cur    histPoint // scratch
	n      int64
	learn  []bucketStat
	d      int64
	firstT int64
	pts    []histPoint // snapshot at firstT + k*d
}

func newHistState(h *dto.Histogram, sliceNS int64) *histState {
	s := &histState{d: sliceNS}
	for _, b := range h.Bucket {
		s.bounds = append(s.bounds, b.GetUpperBound())
	}
	slices.Sort(s.bounds)
	s.bounds = slices.Compact(s.bounds)
	s.les = make([]string, len(s.bounds))
	for i, b := range s.bounds {
		s.les[i] = formatLE(b)
	}
	s.learn = make([]bucketStat, len(s.bounds))
	return s
}

// read fills s.cur from h: buckets of another schema are matched by bound,
// missing ones read 0 and extra ones are ignored, as AIPerf does.
func (s *histState) read(ts int64, h *dto.Histogram) {
	c := &s.cur
	c.ts, c.sum, c.count = ts, h.GetSampleSum(), histogramCount(h)
	c.b = slices.Grow(c.b[:0], len(s.bounds))[:len(s.bounds)]
	same := len(h.Bucket) == len(s.bounds)
	for i, b := range h.Bucket {
		if !same || b.GetUpperBound() != s.bounds[i] {
			same = false
			break
		}
		c.b[i] = bucketCount(b)
	}
	if same {
		return
	}
	clear(c.b)
	for _, b := range h.Bucket {
		if i, ok := slices.BinarySearch(s.bounds, b.GetUpperBound()); ok {
			c.b[i] = bucketCount(b)
		}
	}
}

// baseline records a snapshot taken before the window.
func (s *histState) baseline(ts int64, h *dto.Histogram) {
	if s.n > 0 {
		return // late: the window has begun
	}
	s.read(ts, h)
	s.base.set(&s.cur)
	s.prev.set(&s.cur)
	s.baseOK, s.isRef = true, true
}

// add records a window snapshot and learns from the interval since the
// previous one.
func (s *histState) add(ts int64, h *dto.Histogram) {
	s.read(ts, h)
	c := &s.cur
	if s.baseOK {
		learnInterval(s.learn, s.prev.b, c.b, s.prev.sum, c.sum, s.prev.count, c.count)
	} else {
		s.base.set(c)
		s.baseOK = true
	}
	if s.d > 0 {
		if s.n == 0 {
			s.firstT = ts
			s.pts = append(s.pts, histPoint{})
			s.pts[0].set(c)
		} else {
			b := s.firstT + int64(len(s.pts))*s.d
			for ; b < ts; b += s.d {
				s.pts = append(s.pts, histPoint{})
				s.pts[len(s.pts)-1].set(&s.last)
			}
			if b == ts {
				s.pts = append(s.pts, histPoint{})
				s.pts[len(s.pts)-1].set(c)
			}
		}
	}
	s.n++
	s.prev.set(c)
	s.last.set(c)
}

// bucketDeltas returns to's bucket counts minus from's, truncated to
// integers; nil when any is negative (a reset).
func (s *histState) bucketDeltas(from, to *histPoint) ([]Bucket, []int64) {
	out := make([]Bucket, len(s.bounds))
	ints := make([]int64, len(s.bounds))
	for i := range s.bounds {
		d := to.b[i] - from.b[i]
		if d < 0 {
			return nil, nil
		}
		ints[i] = truncInt(d)
		out[i] = Bucket{LE: s.les[i], Count: ints[i]}
	}
	return out, ints
}

// stats returns AIPerf's histogram statistics over the window: count, sum
// and average gained from the base to the last snapshot (clamped at 0), the
// rates over the time between them, the bucket deltas and the estimated
// percentiles.
func (s *histState) stats() (HistogramStats, []Bucket, []Timeslice) {
	st := HistogramStats{Sum: nan, Avg: nan, CountRate: nan, SumRate: nan, P: nanPercentiles}
	sumDelta := max(s.last.sum-s.base.sum, 0)
	count := max(truncInt(s.last.count-s.base.count), 0)
	buckets, ints := s.bucketDeltas(&s.base, &s.last)
	if count == 0 { // AIPerf returns early: no timeslices either
		return st, buckets, nil
	}
	var ts []Timeslice
	if s.d > 0 {
		ts = s.timeslices()
	}
	st.Count, st.Sum = count, sumDelta
	st.Avg = sumDelta / float64(count)
	if dur := s.last.ts - s.base.ts; dur > 0 {
		secs := float64(dur) / 1e9
		st.CountRate = float64(count) / secs
		st.SumRate = sumDelta / secs
	}
	if len(buckets) > 0 {
		if p, ok := estimatePercentiles(s.bounds, ints, s.learn, sumDelta, count); ok {
			st.P = p
		}
	}
	return st, buckets, ts
}

// timeslices returns AIPerf's histogram timeslices: per piece of d from the
// first window snapshot to the last, the count, sum and buckets gained
// between the snapshots at its ends; pieces that went backwards are left
// out. Nil with fewer than two snapshots counting the reference, or when
// no piece is left.
func (s *histState) timeslices() []Timeslice {
	n := s.n
	if s.isRef {
		n++
	}
	if n < 2 {
		return nil
	}
	end := max(s.last.ts, s.firstT+1)
	var out []Timeslice
	for k := 0; ; k++ {
		start := s.firstT + int64(k)*s.d
		if start >= end {
			break
		}
		from, to := s.pointAt(k), &s.last
		if start+s.d < end {
			to = s.pointAt(k + 1)
		}
		sumD, countD := to.sum-from.sum, to.count-from.count
		if sumD < 0 || countD < 0 {
			continue
		}
		t := Timeslice{StartNS: start, EndNS: min(start+s.d, end), Complete: start+s.d <= end,
			Count: truncInt(countD), Sum: sumD}
		if countD > 0 {
			t.Avg = sumD / countD
		}
		if len(s.bounds) > 0 {
			t.Buckets, _ = s.bucketDeltas(from, to)
		}
		out = append(out, t)
	}
	return out
}

// pointAt is the snapshot at boundary k (the last one past the end).
func (s *histState) pointAt(k int) *histPoint {
	if k < len(s.pts) {
		return &s.pts[k]
	}
	return &s.last
}
