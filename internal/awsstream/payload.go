package awsstream

import (
	"errors"
)

// PayloadPartEvent is the event type of SageMaker's
// InvokeEndpointWithResponseStream whose payload is the next bytes of the
// model container's own response stream (PayloadPart.Bytes, the event's
// payload as is).
const PayloadPartEvent = "PayloadPart"

// PayloadReader is the byte stream carried by the PayloadPart events of a
// SageMaker response stream: the container's own stream (for example SSE
// "data:" lines), split at arbitrary byte boundaries. Each Read returns
// bytes of one frame only, and Stamp then returns that frame's stamp, so a
// reader stamping with Stamp (sse.NewReader(pr, pr.Stamp)) gives each
// message the stamp of the frame that carried its first byte. It is not
// safe for concurrent use.
type PayloadReader struct {
	r     *Reader
	rest  []byte // unread bytes of the current frame
	stamp int64
	err   error
}

// NewPayloadReader returns the PayloadPart byte stream of r. Events of
// other types are skipped; an exception or error frame ends the stream
// with its *EventError.
func NewPayloadReader(r *Reader) *PayloadReader { return &PayloadReader{r: r} }

// Read reads the next bytes of the current frame, blocking for the next
// PayloadPart frame when it has none. It returns io.EOF at a clean end of
// stream and the Reader's errors otherwise.
func (p *PayloadReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for len(p.rest) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		ev, err := p.r.Next()
		if err != nil {
			p.err = err
			return 0, err
		}
		if err := ev.Err(); err != nil {
			p.err = err
			return 0, err
		}
		if ev.Type != PayloadPartEvent {
			continue
		}
		p.rest, p.stamp = ev.Payload, ev.PerfNS
	}
	n := copy(b, p.rest)
	p.rest = p.rest[n:]
	return n, nil
}

// Stamp returns the stamp of the frame that delivered the bytes of the
// latest Read (0 before the first).
func (p *PayloadReader) Stamp() int64 { return p.stamp }

// IsEventError reports whether err is (or wraps) an exception or error
// frame of the stream, and returns it.
func IsEventError(err error) (*EventError, bool) {
	var ee *EventError
	ok := errors.As(err, &ee)
	return ee, ok
}
