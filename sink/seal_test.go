package sink

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// sealInterval is the Interval of the seal tests. Every bound below is a
// fraction of it, so the tests ask the same of a fast machine and a busy one.
const sealInterval = 200 * time.Millisecond

// sealLate is how late a timer seal may be: 5% of the interval later than
// a plain Go timer armed for the same deadline fires (on an idle machine,
// 5% after the deadline). Measured against that control, the bound is the
// stream's own delay (running its timer, taking its lock), not the time a
// busy machine keeps every timer of the process waiting. A seal is never
// early: that bound has no margin.
const sealLate = sealInterval / 20

// sealClock records when each segment of a stream was sealed, through the
// stream's onSeal hook.
type sealClock struct {
	mu     sync.Mutex
	at     map[string]time.Time
	sealed chan string // every sealed segment's name, in order
}

// newSealStream opens a stream on a mem:// store, with the seal interval and
// the given limits (0: far out of reach), whose seals are recorded.
func newSealStream(t *testing.T, records, bytes int) (*Store, *Run, *Stream, *sealClock) {
	t.Helper()
	s, err := Open(context.Background(), "mem://", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if records == 0 {
		records = 1 << 30
	}
	if bytes == 0 {
		bytes = 1 << 30
	}
	r := s.NewRun(NewRunID(time.Now()))
	st, err := r.NewStream("records", StreamOptions{Interval: sealInterval, Records: records, Bytes: bytes, SpoolDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	c := &sealClock{at: map[string]time.Time{}, sealed: make(chan string, 1000)}
	st.onSeal = func(name string, at time.Time) {
		c.mu.Lock()
		c.at[name] = at
		c.mu.Unlock()
		c.sealed <- name
	}
	return s, r, st, c
}

// when returns the time segment name was sealed.
func (c *sealClock) when(name string) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at[name]
}

// next waits for the next seal, failing the test when none comes within
// many intervals.
func (c *sealClock) next(t *testing.T) (string, time.Time) {
	t.Helper()
	select {
	case name := <-c.sealed:
		return name, c.when(name)
	case <-time.After(50 * sealInterval):
		t.Fatal("no segment sealed within 50 intervals")
		return "", time.Time{}
	}
}

// written is the span of one Write call: the stream took the record's time
// somewhere inside it. control receives the time a plain timer armed for
// one interval after the call's end fired.
type written struct {
	before, after time.Time
	control       chan time.Time
}

// writeTimed writes one record and returns when the Write call began and
// ended, and arms its control timer.
func writeTimed(t *testing.T, st *Stream, rec string) written {
	t.Helper()
	w := written{before: time.Now(), control: make(chan time.Time, 1)}
	if _, err := st.Write([]byte(rec)); err != nil {
		t.Fatal(err)
	}
	w.after = time.Now()
	time.AfterFunc(sealInterval, func() { w.control <- time.Now() })
	return w
}

// checkAge checks that a segment whose first record was written during w
// and sealed at `at` was sealed exactly one interval later. A seal before
// that fails the test; one more than sealLate after w's control timer fired
// is returned as a note for untilPunctual.
func checkAge(t *testing.T, what string, w written, at time.Time) (late string) {
	t.Helper()
	var control time.Time
	select {
	case control = <-w.control:
	case <-time.After(50 * sealInterval):
		t.Fatal("the control timer did not fire within 50 intervals")
	}
	if early := at.Sub(w.before); early < sealInterval {
		t.Errorf("%s sealed %v after its first record was written, before the interval %v", what, early, sealInterval)
	}
	if d := at.Sub(control); d > sealLate {
		return fmt.Sprintf("%s sealed %v after its first record was written, %v after a timer for the same deadline fired (that one %v after the deadline): more than 5%% of the interval %v late",
			what, at.Sub(w.after), d, control.Sub(w.after)-sealInterval, sealInterval)
	}
	return ""
}

// untilPunctual runs attempt, which returns the notes of its late seals, up
// to three times until one attempt has none, and fails the test with every
// note otherwise. A machine whose CPUs are all busy can stall the thread
// running a seal between its control timer and the seal itself (1 seal in
// 100 with two CPU-bound processes on two cores and -race): such an attempt
// is spoiled by the machine and taken again. A stream that is late by design
// is late in every attempt (polling every interval/4, 4 seals in 5 are more
// than 5% late).
func untilPunctual(t *testing.T, attempt func() []string) {
	t.Helper()
	var notes []string
	for i := 1; i <= 3; i++ {
		late := attempt()
		if len(late) == 0 {
			return
		}
		for _, n := range late {
			notes = append(notes, fmt.Sprintf("attempt %d: %s", i, n))
		}
	}
	t.Errorf("late seals in every attempt:\n  %s", strings.Join(notes, "\n  "))
}

// noted collects checkAge's notes, skipping the empty ones.
func noted(notes []string, note string) []string {
	if note != "" {
		notes = append(notes, note)
	}
	return notes
}

// TestStreamSealsEachSegmentOneIntervalAfterItsFirstRecord: with records
// written continuously, every segment the timer seals is sealed when its
// first record is one interval old (-0, +5%), whatever time the records
// before it came in.
func TestStreamSealsEachSegmentOneIntervalAfterItsFirstRecord(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	untilPunctual(t, func() (late []string) {
		s, r, st, clock := newSealStream(t, 0, 0)
		var spans []written
		for start := time.Now(); time.Since(start) < 11*sealInterval/2; {
			spans = append(spans, writeTimed(t, st, fmt.Sprintf("{\"i\":%d}\n", len(spans))))
			time.Sleep(sealInterval / 100)
		}
		closing := time.Now()
		segs, stats, err := st.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Records != int64(len(spans)) {
			t.Fatalf("%d records counted, %d written", stats.Records, len(spans))
		}
		timed, next := 0, 0
		for _, seg := range segs {
			b, err := s.Bucket.ReadAll(ctx, r.Key(seg))
			if err != nil {
				t.Fatal(err)
			}
			var first struct{ I int }
			if err := json.Unmarshal(b[:bytes.IndexByte(b, '\n')], &first); err != nil {
				t.Fatal(err)
			}
			if first.I != next {
				t.Fatalf("%s begins with record %d, want %d", seg, first.I, next)
			}
			next += bytes.Count(b, []byte{'\n'})
			if at := clock.when(seg); at.Before(closing) { // not Close's seal
				timed++
				late = noted(late, checkAge(t, seg, spans[first.I], at))
			}
		}
		if next != len(spans) {
			t.Fatalf("segments hold %d records, %d written", next, len(spans))
		}
		// 5.5 intervals of records: 5 segments sealed by the timer; allow
		// for a Close that came just as the 5th was due.
		if timed < 4 {
			t.Fatalf("%d segments sealed by the timer in 5.5 intervals, want 5", timed)
		}
		return late
	})
}

// TestStreamSealsALoneRecordOneIntervalLater: one record written at t, and
// nothing after it, is sealed at t + interval and stored while the stream
// is still open.
func TestStreamSealsALoneRecordOneIntervalLater(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	untilPunctual(t, func() []string {
		s, r, st, clock := newSealStream(t, 0, 0)
		w := writeTimed(t, st, "{\"i\":0}\n")
		name, at := clock.next(t)
		late := checkAge(t, name, w, at)
		for deadline := time.Now().Add(50 * sealInterval); ; time.Sleep(sealInterval / 20) {
			if ok, _ := s.Bucket.Exists(ctx, r.Key(name)); ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s sealed but not stored within 50 intervals", name)
			}
		}
		if _, _, err := st.Close(ctx); err != nil {
			t.Fatal(err)
		}
		return noted(nil, late)
	})
}

// TestStreamLimitSealRestartsTheClock: a segment sealed early by the record
// or the byte limit takes its deadline with it; the next segment seals one
// interval after its own first record, not at the old deadline.
func TestStreamLimitSealRestartsTheClock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		records, bytes int
	}{
		{"records", 10, 0},
		{"bytes", 0, 100}, // ten 10-byte records
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			untilPunctual(t, func() []string {
				_, _, st, clock := newSealStream(t, tc.records, tc.bytes)
				rec := func(i int) string { return fmt.Sprintf("{\"i\":%03d}\n", i) }
				writeTimed(t, st, rec(0))
				time.Sleep(sealInterval / 2)
				for i := 1; i < 10; i++ {
					writeTimed(t, st, rec(i))
				}
				if name, _ := clock.next(t); name != "records/000001.jsonl" {
					t.Fatalf("first seal %s, want records/000001.jsonl", name)
				}
				w := writeTimed(t, st, rec(10))
				name, at := clock.next(t)
				late := checkAge(t, name, w, at)
				if _, _, err := st.Close(context.Background()); err != nil {
					t.Fatal(err)
				}
				return noted(nil, late)
			})
		})
	}
}

// TestStreamClockStartsWithACompleteLine: a partial line is no record, so
// it does not start a segment's clock, whether it opens the segment or is
// carried over from the one the timer sealed; the line's end does.
func TestStreamClockStartsWithACompleteLine(t *testing.T) {
	t.Parallel()
	untilPunctual(t, func() (late []string) {
		_, _, st, clock := newSealStream(t, 0, 0)
		writeTimed(t, st, "{\"i\":")
		time.Sleep(sealInterval / 2)
		w := writeTimed(t, st, "0}\n{\"i\":")
		name, at := clock.next(t)
		late = noted(late, checkAge(t, name+" (opened by a partial line)", w, at))
		time.Sleep(sealInterval / 2)
		w = writeTimed(t, st, "1}\n")
		name, at = clock.next(t)
		late = noted(late, checkAge(t, name+" (opened by a carried-over partial line)", w, at))
		if _, _, err := st.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		return late
	})
}

// TestStreamIgnoresAStaleTimer: a timer call that comes before the open
// segment's deadline (one armed for a segment a limit already sealed) does
// not seal it; the segment still seals on time.
func TestStreamIgnoresAStaleTimer(t *testing.T) {
	t.Parallel()
	untilPunctual(t, func() []string {
		_, _, st, clock := newSealStream(t, 0, 0)
		w := writeTimed(t, st, "{\"i\":0}\n")
		st.sealDue()
		name, at := clock.next(t)
		late := checkAge(t, name, w, at)
		if _, _, err := st.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		return noted(nil, late)
	})
}

// TestStreamCloseSealsBeforeTheDeadline: Close seals the open segment at
// once, and its timer seals nothing afterwards.
func TestStreamCloseSealsBeforeTheDeadline(t *testing.T) {
	t.Parallel()
	_, _, st, clock := newSealStream(t, 0, 0)
	writeTimed(t, st, "{\"i\":0}\n")
	segs, stats, err := st.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 1 || stats.Records != 1 {
		t.Fatalf("%d segments, %d records after Close; want 1, 1", len(segs), stats.Records)
	}
	<-clock.sealed
	select {
	case name := <-clock.sealed:
		t.Fatalf("%s sealed after Close", name)
	case <-time.After(2 * sealInterval):
	}
}

// BenchmarkStreamArmDisarm measures what the seal timer adds to a segment
// (to its first record's Write, and to its seal): taking the time, arming
// the timer, stopping it. No other Write touches the timer.
func BenchmarkStreamArmDisarm(b *testing.B) {
	s, err := Open(context.Background(), "mem://", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	st, err := s.NewRun(NewRunID(time.Now())).NewStream("records", StreamOptions{SpoolDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	st.mu.Lock()
	for b.Loop() {
		st.armLocked(time.Now())
		st.disarmLocked()
	}
	st.mu.Unlock()
	if _, _, err := st.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
}
