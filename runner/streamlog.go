package runner

import "github.com/aiperf-go/aiperf/record"

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
