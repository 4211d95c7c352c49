package sink

import "time"

// Sealing by age. A segment is sealed when its first record is exactly
// StreamOptions.Interval old, so that a process killed at any moment loses
// at most the records written in the last interval. The deadline is a timer
// armed by Write when the first record (the first complete line) of an
// open segment arrives, not a poll: records neither wait for the next tick
// nor are cut early. Only the first record of a segment touches the timer,
// so Write stays cheap; the record and byte limits, and Close, seal earlier
// and disarm it, and the next segment's first record arms it again.

// armLocked starts the open segment's clock: its first record was written
// at now, so it seals at now + Interval. The caller holds st.mu.
func (st *Stream) armLocked(now time.Time) {
	st.deadline = now.Add(st.opts.Interval)
	st.timer.Reset(st.opts.Interval)
}

// disarmLocked stops the clock of a segment that is sealed before its
// deadline, or of a stream that is closing. The caller holds st.mu.
func (st *Stream) disarmLocked() {
	st.deadline = time.Time{}
	st.timer.Stop()
}

// sealDue runs when the timer fires: it seals the open segment if its
// deadline has come. The timer may fire for a segment already sealed by a
// limit while a newer segment has re-armed it (a stop that came too late to
// keep this call from starting), so the segment's own deadline decides, and
// a call that finds it still ahead re-arms the timer for the rest.
func (st *Stream) sealDue() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed || st.curLines == 0 || st.deadline.IsZero() {
		return
	}
	if left := time.Until(st.deadline); left > 0 {
		st.timer.Reset(left)
		return
	}
	st.sealLocked()
}
