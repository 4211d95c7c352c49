package runner

import (
	"context"
	"sync"

	"github.com/aiperf-go/aiperf/record"
)

// A streamed response spends most of its life waiting for its next event,
// and a whole one waiting for its head. A goroutine blocked there keeps the
// stack its deepest call grew to (4 KiB for a stream parsed in place), so
// 10,000 open streams held 40 MB of stacks (issue 19). A turn that would
// wait with nothing to read is instead parked: its goroutine returns, and
// a fresh goroutine, whose stack is the runtime's smallest (2 KiB) and stays
// so while it waits (~600 bytes of frames), waits for the data and reads it,
// stamps it, parses on, and goes on with what the first goroutine would have
// done next. The wait is the network poller's, as a Read's, and the data is
// stamped right after the read that brought it, as before: parking changes
// no time. It costs ~1 µs a wait (a
// goroutine started, its stack grown again), so a flight parks only while
// many are open (parkOpen). The Makefile links the runtime's adaptive
// starting stack size off (NOGROW): after a collection among deep
// goroutines it would start the waiting ones at 4 KiB.

// turnFunc begins a turn of session s under credit c: what phaseRun.begin
// is.
type turnFunc func(ctx context.Context, c credit, s *session) *turn

// turn is one request of a session, from the request sent to the record
// submitted: begin sends it (and takes a head that came at once); read
// reads the response, parking where it would wait; end records it and
// returns its failure, as a dispatchFunc does.
type turn struct {
	ctx  context.Context
	rec  *record.Record
	s    *session
	live bool    // ctx had not ended when the turn began
	sent bool    // the request went to the sender
	fl   *flight // the response being read; nil once read
	// done is the phase's end of a turn (record, session, failure window).
	done func(*turn) string
}

// read reads the turn's response to its end and returns false; with park,
// it returns true instead when the stream waits for data with nothing to
// read: the caller may then leave the turn to another goroutine, which
// calls wait and then read again.
func (t *turn) read(park bool) (parked bool) {
	if t.fl == nil {
		return false
	}
	if t.fl.read(park) {
		return true
	}
	t.fl.finish()
	t.fl = nil
	return false
}

// wait blocks until a parked turn's connection has data, fails or passes
// its deadline.
func (t *turn) wait() { t.fl.wait() }

// end records the read turn and returns its failure type ("" for none).
func (t *turn) end() string { return t.done(t) }

// run reads the turn to its end on this goroutine and ends it.
func (t *turn) run() string {
	t.read(false)
	return t.end()
}

// relay reads t to its end and calls then with its failure, on this
// goroutine; when t parks, on a fresh goroutine counted in wg that waits
// for its data first. then must not begin another turn of its own (a
// chain of turns would nest calls): a worker does that (worker.run).
func relay(wg *sync.WaitGroup, t *turn, then func(failure string)) {
	if t.read(true) {
		wg.Add(1)
		go resumeRelay(wg, t, then)
		return
	}
	then(t.end())
}

// resumeRelay is relay's parked half, on its own goroutine.
func resumeRelay(wg *sync.WaitGroup, t *turn, then func(failure string)) {
	defer wg.Done()
	t.wait()
	relay(wg, t, then)
}
