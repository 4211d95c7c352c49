package telemetry

// counterState summarises a counter: the reference (the last sample before
// the window), the first and last window samples, the resets seen, and for
// timeslices the value at each slice boundary.
type counterState struct {
	refOK  bool
	refTS  int64
	refV   float64
	n      int64
	firstT int64
	firstV float64
	lastT  int64
	lastV  float64
	resets int
	d      int64     // timeslice length, 0 for none
	bounds []float64 // value at firstT + k*d: the last sample at or before it
}

// baseline records a sample taken before the window.
func (c *counterState) baseline(ts int64, v float64) {
	if c.n > 0 {
		return // late: the window has begun
	}
	c.refOK, c.refTS, c.refV = true, ts, v
}

// add records a window sample.
func (c *counterState) add(ts int64, v float64) {
	if c.n == 0 {
		c.firstT, c.firstV = ts, v
		if c.d > 0 {
			c.bounds = append(c.bounds, v)
		}
	} else {
		if v < c.lastV {
			c.resets++
		}
		if c.d > 0 {
			b := c.firstT + int64(len(c.bounds))*c.d
			for ; b < ts; b += c.d {
				c.bounds = append(c.bounds, c.lastV)
			}
			if b == ts {
				c.bounds = append(c.bounds, v)
			}
		}
	}
	c.n++
	c.lastT, c.lastV = ts, v
}

// stats returns AIPerf's counter statistics: the increase from the
// reference (or the first window sample when there is none) to the last
// window sample, clamped at 0, and that over the time between them.
func (c *counterState) stats() (CounterStats, []Timeslice) {
	refT, refV := c.firstT, c.firstV
	if c.refOK {
		refT, refV = c.refTS, c.refV
	}
	s := CounterStats{Total: max(c.lastV-refV, 0), RateAvg: nan, RateMin: nan, RateMax: nan, RateStd: nan}
	if dur := c.lastT - refT; dur > 0 {
		s.Rate = s.Total / (float64(dur) / 1e9)
	}
	if c.d <= 0 {
		return s, nil
	}
	ts := c.timeslices()
	if len(ts) > 0 {
		s.RateAvg, s.RateMin, s.RateMax, s.RateStd = rateStats(ts)
	}
	return s, ts
}

// timeslices returns AIPerf's counter timeslices: for each piece of d from
// the first window sample to the last, the increase between the values at
// its two ends (clamped at 0) and its rate. Empty (not nil) when the series
// has fewer than two samples counting the reference.
func (c *counterState) timeslices() []Timeslice {
	out := []Timeslice{}
	n := c.n
	if c.refOK {
		n++
	}
	if n < 2 {
		return out
	}
	end := max(c.lastT, c.firstT+1)
	for k := 0; ; k++ {
		start := c.firstT + int64(k)*c.d
		if start >= end {
			break
		}
		stop := min(start+c.d, end)
		vs := c.valueAt(k)
		ve := c.lastV
		if start+c.d < end {
			ve = c.valueAt(k + 1)
		}
		t := Timeslice{StartNS: start, EndNS: stop, Complete: start+c.d <= end, Total: max(ve-vs, 0)}
		if dur := float64(stop-start) / 1e9; dur > 0 {
			t.Rate = t.Total / dur
		}
		out = append(out, t)
	}
	return out
}

// valueAt is the value at boundary k (the last value when the boundary is
// past the last sample).
func (c *counterState) valueAt(k int) float64 {
	if k < len(c.bounds) {
		return c.bounds[k]
	}
	return c.lastV
}
