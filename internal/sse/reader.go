// Package sse reads a Server-Sent Events stream message by message, stamping
// each message with the time its first byte was read.
//
// Parsing follows the WHATWG event-stream rules: `field: value` lines (one
// optional space after the colon), `\n`, `\r\n` or `\r` line ends, lines
// starting with ':' are comments, several data lines are joined with "\n", and
// a blank line ends a message.
package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Errors returned by Reader.Next. Read errors of the underlying reader are
// returned wrapped and never equal these.
var (
	// ErrTruncated reports a stream that ended inside a message: a data or
	// event field, or a partial non-comment line, with no terminating blank
	// line. The unterminated message is discarded, as browsers do.
	ErrTruncated = errors.New("sse: stream ended inside a message")
	// ErrTooLarge reports a message (or a single line) longer than the
	// reader's limit.
	ErrTooLarge = errors.New("sse: message too large")
)

// DefaultMaxMessage is the default limit on the bytes of one message,
// counting every line of it with its line end.
const DefaultMaxMessage = 16 << 20

const (
	// initialBuf is the buffer a reader starts with, doubled when an event
	// does not fit. A stream waiting for its next event holds it, so it is
	// sized for one typical event (a chat chunk is 150-400 bytes): 10,000
	// open streams hold 2.5 MB at 256 bytes, 10 MB at 1 KiB.
	initialBuf = 256
	// maxEmptyReads bounds reads returning (0, nil), as bufio does, so a
	// misbehaving reader cannot make Next spin forever.
	maxEmptyReads = 100
)

// Message is one dispatched event.
type Message struct {
	// PerfNS is the value of the clock taken right after the Read call that
	// delivered the first byte of this message. Messages delivered by the
	// same Read share its stamp.
	PerfNS int64
	// Event is the event type, or "" when the message had no event field.
	Event string
	// ID is the last event ID seen on the stream so far (an id field
	// persists across messages, per the spec), or "".
	ID string
	// Data is the data lines joined with "\n". It aliases the reader's
	// buffer and is valid only until the next call to Next; copy it to keep
	// it.
	Data []byte
}

// Reader reads messages from an event stream. It is not safe for concurrent
// use. It never closes the underlying reader; its owner does.
type Reader struct {
	r   io.Reader
	now func() int64
	max int

	buf        []byte
	start, end int   // unread bytes are buf[start:end]
	readStamp  int64 // clock value after the latest Read that returned bytes
	readErr    error // error of the latest Read, seen once buf is drained
	err        error // sticky error returned by every later Next
	skipLF     bool  // the previous line ended in '\r': skip a following '\n'
	bomChecked bool

	// The message being assembled.
	inMsg    bool // a byte of the message has been seen
	msgStamp int64
	msgBytes int
	hasData  bool
	// data is the message's data: while aliased, it is a slice of buf
	// (a message of one data line, the usual case, is never copied); else
	// it is dataBuf's, which the reader keeps across messages.
	data     []byte
	aliased  bool
	dataBuf  []byte
	event    []byte
	hasEvent bool
	lastID   string

	// Strings of the previous message, reused when equal to avoid an
	// allocation per message.
	eventStr string
}

// NewReader returns a Reader of r. now is called right after every Read that
// returns bytes; its value stamps the messages that start in those bytes.
func NewReader(r io.Reader, now func() int64) *Reader {
	return &Reader{r: r, now: now, max: DefaultMaxMessage}
}

// SetMaxMessage sets the limit on the bytes of one message (n > 0); Next
// returns ErrTooLarge past it. It must be called before the first Next.
func (r *Reader) SetMaxMessage(n int) {
	if n > 0 {
		r.max = n
	}
}

// Next blocks until the next message with data or an event type is complete
// and returns it. Messages with neither (comments, id-only, blank) are
// skipped. At a clean end of stream it returns io.EOF; if the stream ends
// inside a message it returns ErrTruncated; a read error is returned wrapped.
// After any error, every later call returns the same error.
func (r *Reader) Next() (Message, error) {
	if r.err != nil {
		return Message{}, r.err
	}
	for {
		if r.start == r.end {
			if err := r.fill(); err != nil {
				r.err = err
				return Message{}, err
			}
			continue
		}
		if r.skipLF {
			r.skipLF = false
			if r.buf[r.start] == '\n' {
				r.start++
				r.msgBytes++
				continue
			}
		}
		if !r.inMsg {
			// Every unread byte after a dispatch was delivered by the
			// latest Read: Next reads only when no complete line is
			// buffered, so the line that ended the previous message
			// was completed by that Read.
			r.inMsg = true
			r.msgStamp = r.readStamp
			r.msgBytes = 0
		}
		line, ok := r.line()
		if !ok {
			if err := r.fill(); err != nil {
				r.err = err
				return Message{}, err
			}
			continue
		}
		if r.msgBytes > r.max {
			// Counting lines, not data, also bounds messages of many
			// comments or unknown fields.
			r.err = ErrTooLarge
			return Message{}, r.err
		}
		if len(line) == 0 {
			if msg, ok := r.dispatch(); ok {
				return msg, nil
			}
			continue
		}
		r.field(line)
	}
}

// Idle reports whether Next would have to read before it returns: no read
// byte waits to be parsed and no error waits to be returned. A caller that
// knows the underlying reader would block may then wait for data before it
// calls Next (see the runner's parked streams).
func (r *Reader) Idle() bool {
	return r.start == r.end && r.readErr == nil && r.err == nil
}

// Release gives the reader's buffer back, for other readers to use, when it
// is Idle and the buffer has its initial size: a stream waiting between
// messages then holds none (10,000 waiting streams: 2.5 MB), and the next
// Next takes one again. The Data of messages returned before becomes
// invalid. Otherwise Release does nothing.
func (r *Reader) Release() {
	if !r.Idle() || len(r.buf) != initialBuf {
		return
	}
	r.unalias()
	bufs.Put((*[initialBuf]byte)(r.buf))
	r.buf, r.start, r.end = nil, 0, 0
}

// bufs holds released buffers of the initial size.
var bufs = sync.Pool{New: func() any { return new([initialBuf]byte) }}

// line returns the next complete line without its line end, consuming it,
// or ok=false when no complete line is buffered.
func (r *Reader) line() (line []byte, ok bool) {
	b := r.buf[r.start:r.end]
	n := bytes.IndexByte(b, '\n')
	search := b
	if n >= 0 {
		search = b[:n]
	}
	if cr := bytes.IndexByte(search, '\r'); cr >= 0 {
		n = cr
		r.skipLF = true // a '\n' right after is part of this line end
	}
	if n < 0 {
		return nil, false
	}
	line = b[:n]
	if !r.bomChecked {
		r.bomChecked = true
		line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
	}
	r.start += n + 1
	r.msgBytes += n + 1
	return line, true
}

// field applies one non-blank line to the message being assembled.
func (r *Reader) field(line []byte) {
	if line[0] == ':' {
		return // comment
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if !r.hasData {
			r.data, r.aliased, r.hasData = value, true, true
			return
		}
		r.unalias()
		r.data = append(r.data, '\n')
		r.data = append(r.data, value...)
		r.dataBuf = r.data
	case "event":
		r.event = append(r.event[:0], value...)
		r.hasEvent = true
	case "id":
		if bytes.IndexByte(value, 0) < 0 && string(value) != r.lastID {
			r.lastID = string(value)
		}
	}
	// "retry" and unknown fields are ignored.
}

// dispatch ends the message at a blank line and reports whether it is
// returned (it has data or an event type).
func (r *Reader) dispatch() (Message, bool) {
	stamp := r.msgStamp
	r.inMsg = false
	if !r.hasData && !r.hasEvent {
		return Message{}, false
	}
	msg := Message{PerfNS: stamp, ID: r.lastID, Data: r.data}
	if r.hasEvent {
		if string(r.event) != r.eventStr {
			r.eventStr = string(r.event)
		}
		msg.Event = r.eventStr
	}
	r.data, r.aliased = nil, false
	r.hasData, r.hasEvent = false, false
	return msg, true
}

// unalias copies the message's data out of buf, which is about to change.
func (r *Reader) unalias() {
	if r.aliased {
		r.dataBuf = append(r.dataBuf[:0], r.data...)
		r.data, r.aliased = r.dataBuf, false
	}
}

// fill reads more bytes, compacting or growing the buffer first when it is
// full. It returns the error that ends the stream: io.EOF, ErrTruncated,
// ErrTooLarge or a wrapped read error.
func (r *Reader) fill() error {
	if r.err != nil {
		return r.err
	}
	if r.readErr != nil {
		return r.endErr()
	}
	if r.buf == nil {
		r.buf = bufs.Get().(*[initialBuf]byte)[:]
	}
	r.unalias()
	if r.start > 0 {
		r.end = copy(r.buf, r.buf[r.start:r.end])
		r.start = 0
	}
	if r.end == len(r.buf) {
		if r.msgBytes+r.end > r.max {
			return ErrTooLarge
		}
		grown := make([]byte, 2*len(r.buf))
		copy(grown, r.buf[:r.end])
		r.buf = grown
	}
	for range maxEmptyReads {
		n, err := r.r.Read(r.buf[r.end:])
		if n > 0 {
			r.readStamp = r.now()
			r.end += n
		}
		if err != nil {
			r.readErr = err
			if n > 0 {
				return nil // drain the bytes first
			}
			return r.endErr()
		}
		if n > 0 {
			return nil
		}
	}
	r.readErr = io.ErrNoProgress
	return r.endErr()
}

// endErr turns the final read error into Next's error once the buffered
// bytes are exhausted.
func (r *Reader) endErr() error {
	if !errors.Is(r.readErr, io.EOF) {
		return fmt.Errorf("sse: read: %w", r.readErr)
	}
	if r.hasData || r.hasEvent {
		return ErrTruncated
	}
	// A partial line (no line end before EOF) that is not a comment.
	if r.start < r.end && r.buf[r.start] != ':' {
		return ErrTruncated
	}
	return io.EOF
}
