// Package awsstream reads an AWS event stream (Content-Type
// application/vnd.amazon.eventstream: SageMaker's
// InvokeEndpointWithResponseStream, Bedrock's ConverseStream and
// InvokeModelWithResponseStream) event by event, stamping each event with
// the time the first byte of its frame was read, before it is decoded.
//
// The binary framing (prelude, headers, payload, CRCs) is decoded by
// aws-sdk-go-v2's aws/protocol/eventstream Decoder; this package only adds
// the stamps, the event and exception headers, and (PayloadReader) the
// byte stream that SageMaker's PayloadPart events carry.
package awsstream

import (
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// Message types of the ":message-type" header.
const (
	// MessageEvent is an ordinary event (":event-type" names it).
	MessageEvent = "event"
	// MessageException is a modeled error (":exception-type" names it).
	MessageException = "exception"
	// MessageError is an unmodeled error (":error-code", ":error-message").
	MessageError = "error"
)

// Errors returned by Reader.Next. Read errors of the underlying reader are
// returned wrapped and never equal these.
var (
	// ErrTruncated reports a stream that ended inside a frame.
	ErrTruncated = errors.New("awsstream: stream ended inside a frame")
	// ErrMalformed reports a frame the Decoder rejected (a bad CRC or
	// length); the decoder's error is wrapped beside it.
	ErrMalformed = errors.New("awsstream: malformed frame")
)

// DefaultMaxPayload bounds the payload buffer a Reader keeps between
// events: a larger payload is decoded, then its buffer is dropped, so one
// huge event does not pin memory for the rest of the stream.
const DefaultMaxPayload = 64 << 10

// initialBuf is the read buffer of a Reader. A stream waiting for its next
// frame holds it, so it is sized for one typical frame (a token event is
// 100-300 bytes with its headers).
const initialBuf = 512

// Event is one decoded frame.
type Event struct {
	// PerfNS is the clock value taken right after the Read that delivered
	// the first byte of this frame, before any decoding. Frames delivered
	// by the same Read share its stamp.
	PerfNS int64
	// MessageType is the ":message-type" header (MessageEvent,
	// MessageException or MessageError; "" when absent).
	MessageType string
	// Type is the ":event-type" of an event, the ":exception-type" of an
	// exception, or the ":error-code" of an error.
	Type string
	// Payload is the frame's payload. It aliases the reader's buffer and
	// is valid only until the next call to Next.
	Payload []byte
}

// Err returns the event as an error when it is an exception or an error
// frame (an *EventError), else nil.
func (e *Event) Err() error {
	if e.MessageType != MessageException && e.MessageType != MessageError {
		return nil
	}
	return &EventError{Type: e.Type, Message: string(e.Payload)}
}

// EventError is an exception or error frame of the stream.
type EventError struct {
	// Type is the exception type (":exception-type", e.g.
	// "ModelStreamError", "throttlingException") or the error code.
	Type string
	// Message is the frame's payload (usually {"message": …}) or the
	// ":error-message" header of an error frame.
	Message string
}

func (e *EventError) Error() string { return "awsstream: " + e.Type + ": " + e.Message }

// Reader reads events from an event stream. It is not safe for concurrent
// use. It never closes the underlying reader; its owner does.
type Reader struct {
	src     stampedReader
	dec     *eventstream.Decoder
	payload []byte
	err     error
}

// NewReader returns a Reader of r. now is called right after every Read of
// r that returns bytes; its value stamps the frames that start in those
// bytes.
func NewReader(r io.Reader, now func() int64) *Reader {
	return &Reader{src: stampedReader{r: r, now: now}, dec: eventstream.NewDecoder()}
}

// Next blocks until the next frame is complete and returns it. At a clean
// end of stream (between frames) it returns io.EOF; if the stream ends
// inside a frame it returns ErrTruncated; a framing error (bad CRC, bad
// lengths) wraps ErrMalformed; a read error is returned wrapped. After any error, every
// later call returns the same error.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	stamp, err := r.src.first()
	if err != nil {
		if errors.Is(err, io.EOF) {
			r.err = io.EOF
		} else {
			r.err = fmt.Errorf("awsstream: read: %w", err)
		}
		return Event{}, r.err
	}
	m, err := r.dec.Decode(&r.src, r.payload[:0])
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			r.err = ErrTruncated
		} else {
			r.err = fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		return Event{}, r.err
	}
	if cap(m.Payload) <= DefaultMaxPayload {
		r.payload = m.Payload[:0]
	} else {
		r.payload = nil
	}
	ev := Event{PerfNS: stamp, Payload: m.Payload}
	ev.MessageType = header(m.Headers, ":message-type")
	switch ev.MessageType {
	case MessageException:
		ev.Type = header(m.Headers, ":exception-type")
	case MessageError:
		ev.Type = header(m.Headers, ":error-code")
		if msg := header(m.Headers, ":error-message"); msg != "" {
			ev.Payload = []byte(msg)
		}
	default:
		ev.Type = header(m.Headers, ":event-type")
	}
	return ev, nil
}

// header returns the string value of the header name, or "".
func header(hs eventstream.Headers, name string) string {
	for _, h := range hs {
		if h.Name == name {
			if s, ok := h.Value.(eventstream.StringValue); ok {
				return string(s)
			}
			return h.Value.String()
		}
	}
	return ""
}

// stampedReader buffers the stream and stamps every Read of it that
// returns bytes. It reads again only once its buffer is empty, so every
// buffered byte came from the latest Read and shares its stamp.
type stampedReader struct {
	r          io.Reader
	now        func() int64
	buf        []byte
	start, end int
	stamp      int64
	err        error
}

// first makes at least one byte available and returns the stamp of the
// Read that delivered it.
func (s *stampedReader) first() (int64, error) {
	if s.start == s.end {
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
	return s.stamp, nil
}

// maxEmptyReads bounds reads returning (0, nil), as bufio does.
const maxEmptyReads = 100

// fill reads once into the empty buffer.
func (s *stampedReader) fill() error {
	if s.err != nil {
		return s.err
	}
	if s.buf == nil {
		s.buf = make([]byte, initialBuf)
	}
	s.start, s.end = 0, 0
	for range maxEmptyReads {
		n, err := s.r.Read(s.buf)
		if n > 0 {
			s.stamp = s.now()
			s.end = n
			s.err = err
			return nil
		}
		if err != nil {
			s.err = err
			return err
		}
	}
	s.err = io.ErrNoProgress
	return s.err
}

// Read serves buffered bytes; a read as large as the buffer bypasses it
// (a large payload), which is safe because the caller is then inside a
// frame whose stamp is already taken.
func (s *stampedReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if s.start == s.end {
		if len(p) >= len(s.buf) && s.buf != nil && s.err == nil {
			n, err := s.r.Read(p)
			if n > 0 {
				s.stamp = s.now()
			}
			if err != nil && n > 0 {
				s.err = err
				err = nil
			}
			return n, err
		}
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, s.buf[s.start:s.end])
	s.start += n
	return n, nil
}
