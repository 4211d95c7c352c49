package runner

import (
	"sync"

	"github.com/aiperf-go/aiperf/record"
)

// credit is permission to send one request: its sequence number in the
// phase and its intended send time.
type credit struct {
	num      int
	intended int64 // monotonic ns
}

// issuer hands out credits under one lock so that sequence numbers and
// intended times are assigned together, and enforces the stop conditions.
// The phase starts at its first credit: that is when its duration begins
// and onStart runs.
type issuer struct {
	mu       sync.Mutex
	spec     *phaseSpec
	clock    *record.Clock
	onStart  func()
	sent     int
	sessions int   // sessions started
	deadline int64 // monotonic ns; 0: none
}

func newIssuer(spec *phaseSpec, clock *record.Clock, onStart func()) *issuer {
	return &issuer{spec: spec, clock: clock, onStart: onStart}
}

// take returns the next credit with the given intended time (now when 0),
// or false when a stop condition is met.
func (is *issuer) take(intended int64) (credit, bool) {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.takeLocked(intended)
}

// startWithCredit starts a session made by open together with its first
// turn's credit, intended when that turn is ready, in one step: a session
// that starts always sends its first turn. Closed-loop workers start
// sessions concurrently; started apart, a worker could start a session,
// lose the last credit to another worker, and leave a session number, and
// the conversation drawn for it, unsent, with one more session drawn after
// it instead (TestShardUnionIsThePlan). It returns false when the phase may
// start no more sessions.
func (is *issuer) startWithCredit(open func() *session) (*session, credit, bool) {
	is.mu.Lock()
	defer is.mu.Unlock()
	if !is.mayStartLocked() {
		return nil, credit{}, false
	}
	is.sessions++
	s := open()
	c, ok := is.takeLocked(s.readyAt(is.clock.Now()))
	if !ok { // mayStartLocked checked what takeLocked does
		return nil, credit{}, false
	}
	return s, c, true
}

// takeLocked is take with is.mu held.
func (is *issuer) takeLocked(intended int64) (credit, bool) {
	now := is.clock.Now()
	if is.spec.count != 0 && is.sent >= is.spec.count { // < 0: none (a shard's empty share)
		return credit{}, false
	}
	if is.sent == 0 {
		if is.spec.duration > 0 {
			is.deadline = now + int64(is.spec.duration)
		}
		if is.onStart != nil {
			is.onStart()
		}
	}
	if is.deadline > 0 && now >= is.deadline {
		return credit{}, false
	}
	if intended == 0 {
		intended = now
	}
	c := credit{num: is.sent, intended: intended}
	is.sent++
	return c, true
}

// startSession reports whether a new session may start, and counts it: not
// once the session limit is reached, nor when no credit is left.
func (is *issuer) startSession() bool {
	is.mu.Lock()
	defer is.mu.Unlock()
	if !is.mayStartLocked() {
		return false
	}
	is.sessions++
	return true
}

// mayStart reports whether a new session may start now, counting nothing.
func (is *issuer) mayStart() bool {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.mayStartLocked()
}

func (is *issuer) mayStartLocked() bool {
	return (is.spec.sessions <= 0 || is.sessions < is.spec.sessions) &&
		(is.spec.count == 0 || is.sent < is.spec.count) &&
		(is.deadline <= 0 || is.clock.Now() < is.deadline)
}
