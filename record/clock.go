package record

import "time"

// Clock is the run's single time source. Every timestamp of a run is a
// monotonic offset from Clock's origin; the wall-clock origin is stored once,
// so wall times are derived, never read twice.
type Clock struct {
	origin time.Time
	wallNS int64
}

// NewClock returns a clock whose origin is now.
func NewClock() *Clock {
	now := time.Now()
	return &Clock{origin: now, wallNS: now.UnixNano()}
}

// NewClockAt returns a clock with the given origin (for tests and replays).
func NewClockAt(origin time.Time) *Clock {
	return &Clock{origin: origin, wallNS: origin.UnixNano()}
}

// Now returns monotonic nanoseconds since the origin. It is always >= 1 so a
// taken timestamp is never mistaken for "unset" (0).
func (c *Clock) Now() int64 {
	d := int64(time.Since(c.origin))
	if d < 1 {
		return 1
	}
	return d
}

// Origin returns the wall-clock origin.
func (c *Clock) Origin() time.Time { return c.origin }

// Wall converts a monotonic offset to wall-clock Unix nanoseconds.
func (c *Clock) Wall(ns int64) int64 { return c.wallNS + ns }
