package runner

import (
	"context"
	"net/http"
	"time"

	"github.com/aiperf-go/aiperf/internal/h1"
	"github.com/aiperf-go/aiperf/internal/sse"
	"github.com/aiperf-go/aiperf/record"
)

// flight is a request and its response, from the request written to the
// connection let go: what send keeps while it waits for the response's head
// and reads its body. Its state lives here rather than on a goroutine's
// stack, so that a turn can leave it to another goroutine where it would
// wait for the connection (see turn): start, then read (again after wait
// when it parks), then finish.
type flight struct {
	s       *sender
	ctx     context.Context
	rec     *record.Record
	payload []byte
	cancel  context.CancelFunc // the request timeout's, when a context timer
	tr      *tracer            // when traced

	// The request sent, while its response's head is awaited.
	traced  context.Context // ctx with the trace or the reuse watch
	watch   *reuseWatch     // when not traced: whether the connection was reused
	target  string
	x       h1.Exchange // the head to read, while heading
	heading bool
	req     *http.Request
	woke    bool  // it waited for the head (wait) and has not read since
	readAt  int64 // the clock right after that wait read bytes; 0 for none

	resp   *http.Response // nil when no response came
	stream *streamRead    // a streamed body still to read
}

// start sends rec's request (see send) and returns its flight: on h1's
// direct path the response's head is still to read (read does); through
// any other transport it is taken at once (see take). The caller reads the
// flight to its end (read) and then calls finish, as send does.
func (s *sender) start(ctx context.Context, rec *record.Record, payload []byte) *flight {
	s.open.Add(1)
	f := &flight{s: s, rec: rec, payload: payload}
	switch {
	case s.timeout > 0 && s.connDeadline:
		ctx = h1.WithDeadline(ctx, time.Now().Add(s.timeout))
	case s.timeout > 0:
		ctx, f.cancel = context.WithTimeout(ctx, s.timeout)
	}
	f.ctx = ctx
	if s.trace {
		f.tr = newTracer(s.clock)
		f.traced = f.tr.context(ctx, s.client.Transport)
	} else {
		f.watch = new(reuseWatch)
		f.traced = f.watch.context(ctx, s.client.Transport)
	}
	f.target = s.urls[rec.URLIndex]
	if s.aws != nil {
		f.target = s.aws.target(f.target, rec.Model)
	}
	f.send()
	return f
}

// send sends the request, again while it fails on a stale reused
// connection (see sender.send). It returns with the response's head
// awaited (heading), or with the response taken (take) or the failure recorded.
func (f *flight) send() {
	s, rec := f.s, f.rec
	for {
		f.readAt = 0
		req, err := s.newRequest(f.traced, rec, f.target, f.payload)
		if err != nil {
			s.fail(rec, 0, "RequestError", s.errorText(err))
			return
		}
		if f.tr != nil {
			f.tr.reset()
		} else {
			f.watch.reused = false
		}
		if s.aws != nil { // signing happens before the send stamp
			if err := s.aws.prepare(f.ctx, req, f.payload); err != nil {
				s.fail(rec, 0, "SigningError", err.Error())
				return
			}
		}
		rec.StartNS = s.clock.Now()
		split, resp, err := s.doStart(req, &f.x)
		if split {
			f.heading, f.req = true, req
			return
		}
		if f.answered(resp, err) {
			return
		}
	}
}

// head reads the awaited response head, then goes on as send does.
func (f *flight) head() {
	req := f.req
	resp, err := f.x.Head()
	f.x, f.heading, f.req = h1.Exchange{}, false, nil
	resp, err = f.s.doFinish(req, resp, err)
	if !f.answered(resp, err) {
		f.send()
	}
}

// answered takes resp, or records err; it returns false instead when the
// request failed on a stale reused connection and is to be sent again.
func (f *flight) answered(resp *http.Response, err error) bool {
	if err == nil {
		f.take(resp)
		return true
	}
	var reused bool
	if f.tr != nil {
		reused = f.tr.reused()
	} else {
		reused = f.watch.reused
	}
	if reused && f.ctx.Err() == nil && staleConn(err) {
		return false
	}
	f.s.failErr(f.ctx, f.rec, err)
	return true
}

// take takes the response: a failure status is recorded, a streamed body
// left in the flight to read, any other body (a whole one, an AWS event
// stream) read.
func (f *flight) take(resp *http.Response) {
	s, rec := f.s, f.rec
	f.resp = resp
	body := f.tr.gotHeaders(resp.Body)
	if resp.StatusCode != http.StatusOK {
		s.failStatus(rec, resp.StatusCode, body)
		return
	}
	// Headers are in and the status is a success: stamp the ack before any
	// of the body is read, streamed or whole, as AIPerf 0.13 does (1.0's
	// record export leaves it out for whole bodies, as 0.8 did); when a
	// parked wait read them, at that read.
	ib, _ := resp.Body.(idleBody)
	rec.AckNS = readByWait(f.readAt, ib)
	if rec.AckNS == 0 {
		rec.AckNS = s.clock.Now()
	}
	streamed := isEventStream(resp.Header.Get("Content-Type"))
	framed := s.aws != nil && isAWSEventStream(resp.Header.Get("Content-Type"))
	// The body outlives the headers and the request, which a stream would
	// otherwise keep for its whole length (10,000 streams: ~10 MB).
	resp.Header, resp.Request = nil, nil
	switch {
	case framed:
		rec.Streaming = true
		s.readEventStream(f.ctx, rec, body)
	case streamed:
		rec.Streaming = true
		sr := &streamRead{s: s, ctx: f.ctx, rec: rec}
		if ib != nil {
			// Events that came with the head were read by its wait.
			sr.sse, sr.body, sr.readAt = sse.NewReader(body, sr.now), ib, f.readAt
			sr.rd = sr.sse
		} else {
			sr.rd = sse.NewReader(body, s.clock.Now)
		}
		f.stream = sr
	default:
		s.readWhole(f.ctx, rec, body, f.readAt, ib)
	}
}

// readByWait returns at, the clock a parked wait read right after (0 for
// none), when the bytes ib's reader got last are the ones that wait read;
// 0 otherwise: the caller then stamps with the clock.
func readByWait(at int64, ib idleBody) int64 {
	if at != 0 && ib != nil && ib.ReadByWait() {
		return at
	}
	return 0
}

// parkOpen is how many flights must be open for one to park: parking saves
// ~2.3 KB a waiting stream (a 4 KiB stack for a 2 KiB one, the SSE
// buffer) and costs ~1 µs of CPU each time a stream waits (a goroutine
// started, its stack grown again; BENCHMARKS.md), which only many open
// streams repay. The runner's tests park at any count.
var parkOpen int64 = 1024

// read reads the response to its end and returns false; with park, and
// parkOpen flights open, it returns true instead when the head or the
// stream waits for the connection with nothing to read: the caller may
// leave the flight, and call wait and then read again from another
// goroutine.
func (f *flight) read(park bool) (parked bool) {
	park = park && f.s.open.Load() >= parkOpen
	for f.heading {
		if park && f.headParked() {
			return true
		}
		f.head()
	}
	if f.stream == nil {
		return false
	}
	if f.stream.read(park) {
		return true
	}
	f.stream = nil
	return false
}

// headParked reports whether the awaited head would wait for the
// connection; false right after wait (see streamRead.parked).
func (f *flight) headParked() bool {
	if f.woke {
		f.woke = false
		return false
	}
	return f.x.WouldBlock()
}

// wait blocks until a parked flight's connection has data, fails, or its
// deadline passes, and reads what came, stamped right after the read
// (readAt, or the stream's).
func (f *flight) wait() {
	if f.heading {
		f.woke = true
		if f.x.Wait() {
			f.readAt = f.s.clock.Now()
		}
		return
	}
	f.stream.wait()
}

// finish ends the flight once read: the body's end is stamped and the body
// closed (the connection goes back to the pool when read to its end), the
// trace set on the record, the timeout's timer stopped.
func (f *flight) finish() {
	f.s.open.Add(-1)
	if f.resp != nil {
		f.tr.endBody() // when reading stopped, not when the connection closed
		f.resp.Body.Close()
	}
	if f.tr != nil {
		f.tr.finish(f.rec)
	}
	if f.cancel != nil {
		f.cancel()
	}
}
