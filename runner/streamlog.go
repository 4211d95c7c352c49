package runner

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/internal/sse"
	"github.com/aiperf-go/aiperf/record"
)

// readMessages parses the stamped messages of rd into rec's responses (see
// streamRead), on this goroutine to the stream's end.
func (s *sender) readMessages(ctx context.Context, rec *record.Record, rd messageReader) {
	sr := streamRead{s: s, ctx: ctx, rec: rec, rd: rd}
	sr.read(false)
}

// streamRead is a stream being read: it parses the stamped messages of its
// reader into its record's responses, logged in columns while the stream is
// read (streamLog) and set on the record when it ends, however it ends.
// Its state lives here rather than on a goroutine's stack, so that a stream
// waiting for its next message can be left by its goroutine (see parked).
type streamRead struct {
	s   *sender
	ctx context.Context
	rec *record.Record
	rd  messageReader
	// sse and body, when set, tell when rd's next message would wait for
	// the connection, and wait for it without a buffer (see parked).
	sse  *sse.Reader
	body idleBody

	st        endpoint.Stream // the parse state (responses: deltas seen)
	signalled bool            // the first token was reported to the prefill limit
	woke      bool            // it waited (wait) and has not read since
	readAt    int64           // the clock right after wait read bytes; 0 for none
	log       streamLog
}

// idleBody is a response body that can tell that its next Read would wait
// for the connection, and wait for the data and read it from a shallow
// goroutine (h1's bodies: see their Wait).
type idleBody interface {
	WouldBlock() bool
	Wait() (read bool)
	ReadByWait() bool
}

// parked reports whether the stream's next message would wait for the
// connection with nothing read: no byte waits in the SSE reader, the
// response body or the connection; the SSE reader's buffer is then
// released. Right after wait it reports false, so
// that a wait that returned with nothing to read ends in a plain Read.
func (sr *streamRead) parked() bool {
	if sr.woke {
		sr.woke = false
		return false
	}
	if sr.body == nil || !sr.sse.Idle() || !sr.body.WouldBlock() {
		return false
	}
	sr.sse.Release()
	return true
}

// wait blocks until the connection of a parked stream has data, an error
// or its deadline passes, and reads the data, stamped right after the read.
// Its frames take a few hundred bytes of stack: a fresh goroutine waits and
// reads in it without growing its stack, which the parse then does (~20 µs
// that would otherwise come before the read and its stamp).
func (sr *streamRead) wait() {
	sr.woke = true
	if sr.body.Wait() {
		sr.readAt = sr.s.clock.Now()
	}
}

// now is the SSE reader's clock, called right after a Read that returned
// bytes: the stamp wait took when those bytes were the ones it read, else
// the clock.
func (sr *streamRead) now() int64 {
	t := readByWait(sr.readAt, sr.body)
	sr.readAt = 0
	if t == 0 {
		t = sr.s.clock.Now()
	}
	return t
}

// read parses messages until the stream ends, and returns false; with
// park, it returns true instead when the next message would wait for the
// connection (parked), keeping its state for a later read.
func (sr *streamRead) read(park bool) (parked bool) {
	s, rec := sr.s, sr.rec
	for {
		if park && sr.parked() {
			return true
		}
		msg, err := sr.rd.Next()
		if errors.Is(err, io.EOF) {
			if sr.log.len() > 0 {
				rec.EndNS = sr.log.lastAt()
			} else {
				rec.EndNS = s.clock.Now()
			}
			break
		}
		if typ, msg, ok := awsStreamError(err); ok {
			s.fail(rec, 0, typ, msg)
			break
		}
		if errors.Is(err, sse.ErrTruncated) {
			s.fail(rec, 0, "IncompleteStream", "stream ended in the middle of an event")
			break
		}
		if err != nil {
			s.failErr(sr.ctx, rec, err)
			break
		}
		if msg.Event == "error" {
			s.fail(rec, 0, "StreamError", strings.TrimSpace(string(msg.Data)))
			break
		}
		r, ok, err := s.ep.ParseStream(&sr.st, msg.Data)
		if err != nil {
			s.failParse(rec, msg.Data, err)
			break
		}
		if ok {
			r.PerfNS = msg.PerfNS
			sr.log.add(&r, rec.RequestedOutputTokens)
			if !sr.signalled && r.HasContent() {
				sr.signalled = true
				firstToken(sr.ctx)
			}
		}
	}
	rec.Responses = sr.log.responses()
	return false
}

// maxResponsesCap bounds the responses a stream's log makes room for at
// its first one: 32, what doubling from one reaches by the 17th anyway,
// so a stream that ends early holds at most that much more than it needs.
const maxResponsesCap = 32

// responsesCap is the room a stream's log (streamLog) makes at the first
// response: its requested output tokens plus a role, a finish and a usage
// message, bounded by maxResponsesCap; 1 when no output length was
// requested. Made once, at the first response (not while the stream waits
// for its head), instead of growing by doubling (issue 19).
func responsesCap(requestedOutputTokens int) int {
	if requestedOutputTokens <= 0 {
		return 1
	}
	return min(requestedOutputTokens+3, maxResponsesCap)
}

// streamLog holds a stream's responses while the stream is read, in
// columns: each response's time, and its text and reasoning appended to
// two shared buffers; the rare usage or output objects aside, by index.
// A 20-token chat stream then holds ~0.4 KB for its responses while it
// waits for the next token, where an array of record.Response (56 bytes
// each, with room for the tokens requested) and a string per token held
// ~1.6 KB (issue 19: 10,000 streams). responses builds the record's
// Responses once, when the stream ends.
type streamLog struct {
	at         []int64 // each response's PerfNS
	text       []byte  // the responses' Text, back to back
	textEnd    []int32 // textEnd[i]: where response i's Text ends in text
	reason     []byte  // the responses' Reasoning, back to back
	reasonEnd  []int32 // as textEnd; nil until a response has reasoning
	additional []extras
}

// extras are what response i carried besides its time and texts.
type extras struct {
	i      int
	usage  *record.Usage
	output *record.Output
}

// add appends r. The first response sizes the time and offset columns for
// the requested output tokens (responsesCap).
func (l *streamLog) add(r *record.Response, requestedOutputTokens int) {
	if l.at == nil {
		n := responsesCap(requestedOutputTokens)
		l.at, l.textEnd = make([]int64, 0, n), make([]int32, 0, n)
	}
	i := len(l.at)
	l.at = append(l.at, r.PerfNS)
	l.text = append(l.text, r.Text...)
	l.textEnd = append(l.textEnd, int32(len(l.text)))
	if r.Reasoning != "" && l.reasonEnd == nil {
		l.reasonEnd = make([]int32, i, cap(l.textEnd))
	}
	if l.reasonEnd != nil {
		l.reason = append(l.reason, r.Reasoning...)
		l.reasonEnd = append(l.reasonEnd, int32(len(l.reason)))
	}
	if r.Usage != nil || r.Output != nil {
		l.additional = append(l.additional, extras{i: i, usage: r.Usage, output: r.Output})
	}
}

// len returns the number of responses logged.
func (l *streamLog) len() int { return len(l.at) }

// lastAt returns the last response's PerfNS; the log must not be empty.
func (l *streamLog) lastAt() int64 { return l.at[len(l.at)-1] }

// responses returns the logged responses as record.Responses, in one
// array of their number; their texts share one string (and their
// reasonings another). Nil when the log is empty.
func (l *streamLog) responses() []record.Response {
	if len(l.at) == 0 {
		return nil
	}
	out := make([]record.Response, len(l.at))
	text, reason := string(l.text), string(l.reason)
	from, rfrom := int32(0), int32(0)
	for i := range out {
		out[i].PerfNS = l.at[i]
		out[i].Text, from = text[from:l.textEnd[i]], l.textEnd[i]
		if l.reasonEnd != nil {
			out[i].Reasoning, rfrom = reason[rfrom:l.reasonEnd[i]], l.reasonEnd[i]
		}
	}
	for _, x := range l.additional {
		out[x.i].Usage, out[x.i].Output = x.usage, x.output
	}
	return out
}
