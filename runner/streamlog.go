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

// readStream reads SSE messages, each stamped at its first byte before any
// parsing, and parses them into responses.
func (s *sender) readStream(ctx context.Context, rec *record.Record, body io.Reader) {
	s.readMessages(ctx, rec, sse.NewReader(body, s.clock.Now))
}

// readMessages parses the stamped messages of rd into rec's responses,
// logged in columns while the stream is read (streamLog) and set on rec
// when it ends, however it ends.
func (s *sender) readMessages(ctx context.Context, rec *record.Record, rd messageReader) {
	var st endpoint.Stream // this stream's parse state (responses: deltas seen)
	signalled := false     // the first token was reported to the prefill limit
	log := newStreamLog()
	defer func() { rec.Responses = log.responses() }()
	for {
		msg, err := rd.Next()
		if errors.Is(err, io.EOF) {
			if log.len() > 0 {
				rec.EndNS = log.lastAt()
			} else {
				rec.EndNS = s.clock.Now()
			}
			return
		}
		if typ, msg, ok := awsStreamError(err); ok {
			s.fail(rec, 0, typ, msg)
			return
		}
		if errors.Is(err, sse.ErrTruncated) {
			s.fail(rec, 0, "IncompleteStream", "stream ended in the middle of an event")
			return
		}
		if err != nil {
			s.failErr(ctx, rec, err)
			return
		}
		if msg.Event == "error" {
			s.fail(rec, 0, "StreamError", strings.TrimSpace(string(msg.Data)))
			return
		}
		r, ok, err := s.ep.ParseStream(&st, msg.Data)
		if err != nil {
			s.failParse(rec, msg.Data, err)
			return
		}
		if ok {
			r.PerfNS = msg.PerfNS
			log.add(&r, rec.RequestedOutputTokens)
			if !signalled && r.HasContent() {
				signalled = true
				firstToken(ctx)
			}
		}
	}
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

// newStreamLog returns an empty log on the heap: a stream's goroutine
// keeps only the pointer in its frame (its stack stays 4 KiB, issue 19).
//
//go:noinline
func newStreamLog() *streamLog { return new(streamLog) }

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
