package runner

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"

	"github.com/valyala/fastjson"

	"github.com/aiperf-go/aiperf/internal/awsstream"
	"github.com/aiperf-go/aiperf/internal/sse"
	"github.com/aiperf-go/aiperf/record"
)

// messageReader is a stream of stamped messages: an SSE reader, or the
// events of an AWS event stream as messages (bedrockEvents).
type messageReader interface {
	Next() (sse.Message, error)
}

// readEventStream reads an AWS event stream response, every frame stamped
// at its first byte before it is decoded. SageMaker's PayloadPart events
// carry the container's own SSE stream, read as an SSE body is read (streamRead), each
// message stamped with the frame that carried its first byte; Bedrock's
// events are messages of their own (bedrockEvents).
func (s *sender) readEventStream(ctx context.Context, rec *record.Record, body io.Reader) {
	r := awsstream.NewReader(body, s.clock.Now)
	if s.aws.service == AWSSageMaker {
		pr := awsstream.NewPayloadReader(r)
		s.readMessages(ctx, rec, sse.NewReader(pr, pr.Stamp))
		return
	}
	s.readMessages(ctx, rec, &bedrockEvents{r: r})
}

// bedrockEvents turns Bedrock's stream events into messages for the
// endpoint type's parser: a "chunk" event (InvokeModelWithResponseStream)
// gives the bytes its {"bytes": base64} payload carries (the model's own
// event, e.g. Anthropic's); any other event (ConverseStream's
// contentBlockDelta, metadata, …) gives {"<event type>": payload}, the
// shape bedrock_converse parses. An exception frame is returned as its
// *awsstream.EventError.
type bedrockEvents struct {
	r   *awsstream.Reader
	p   fastjson.Parser
	buf []byte
}

// Next returns the next event as a message stamped with its frame's
// stamp. Data aliases a buffer reused by the next call.
func (b *bedrockEvents) Next() (sse.Message, error) {
	ev, err := b.r.Next()
	if err != nil {
		return sse.Message{}, err
	}
	if err := ev.Err(); err != nil {
		return sse.Message{}, err
	}
	if ev.Type == "chunk" {
		v, err := b.p.ParseBytes(ev.Payload)
		if err != nil {
			return sse.Message{}, fmt.Errorf("%w: chunk event: %w", awsstream.ErrMalformed, err)
		}
		b.buf, err = base64.StdEncoding.AppendDecode(b.buf[:0], v.GetStringBytes("bytes"))
		if err != nil {
			return sse.Message{}, fmt.Errorf("%w: chunk event bytes: %w", awsstream.ErrMalformed, err)
		}
		return sse.Message{PerfNS: ev.PerfNS, Event: ev.Type, Data: b.buf}, nil
	}
	b.buf = append(append(append(append(b.buf[:0], `{"`...), ev.Type...), `":`...), ev.Payload...)
	if len(ev.Payload) == 0 {
		b.buf = append(b.buf, "{}"...)
	}
	b.buf = append(b.buf, '}')
	return sse.Message{PerfNS: ev.PerfNS, Event: ev.Type, Data: b.buf}, nil
}

// awsStreamError returns the record error type and message of an error
// that ended an AWS event stream: an exception frame (its type, e.g.
// ModelStreamError or throttlingException, and payload), or a stream cut
// inside a frame (IncompleteStream), or a frame that could not be decoded
// (ResponseParseError); ok is false for other errors.
func awsStreamError(err error) (typ, msg string, ok bool) {
	if ee, isEvent := awsstream.IsEventError(err); isEvent {
		return ee.Type, ee.Message, true
	}
	if errors.Is(err, awsstream.ErrMalformed) {
		return "ResponseParseError", err.Error(), true
	}
	if errors.Is(err, awsstream.ErrTruncated) {
		return "IncompleteStream", "stream ended in the middle of an event stream frame", true
	}
	return "", "", false
}
