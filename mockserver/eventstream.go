package mockserver

import (
	"bytes"
	"encoding/base64"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// eventStreamType is the Content-Type of an AWS event stream.
const eventStreamType = "application/vnd.amazon.eventstream"

// Ways an eventWriter frames what the generation writes.
const (
	// framePayloadPart: each write's bytes (the container's SSE) become
	// PayloadPart events (SageMaker), split in two frames at a byte
	// boundary inside the write, as SageMaker's own framing does not
	// follow the container's events.
	framePayloadPart = iota
	// frameEvents: each SSE event written ("event: T\ndata: D\n\n")
	// becomes an event of type T with payload D (Bedrock ConverseStream).
	frameEvents
	// frameChunks: each SSE event's data becomes a "chunk" event whose
	// payload is {"bytes": base64(data)} (Bedrock
	// InvokeModelWithResponseStream).
	frameChunks
)

// eventWriter turns a generation's SSE output into an AWS event stream,
// each frame encoded with aws-sdk-go-v2's eventstream Encoder. Responses
// other than 200 (injected errors, bad requests) pass through as JSON.
type eventWriter struct {
	w      http.ResponseWriter
	mode   int
	enc    *eventstream.Encoder
	status int
	buf    bytes.Buffer
}

func newEventWriter(w http.ResponseWriter, mode int) *eventWriter {
	return &eventWriter{w: w, mode: mode, enc: eventstream.NewEncoder()}
}

func (e *eventWriter) Header() http.Header { return e.w.Header() }

// Unwrap lets http.ResponseController reach the connection (the reset
// fault hijacks it).
func (e *eventWriter) Unwrap() http.ResponseWriter { return e.w }

func (e *eventWriter) WriteHeader(status int) {
	e.status = status
	if status == http.StatusOK {
		h := e.w.Header()
		h.Set("Content-Type", eventStreamType)
		h.Del("Content-Length")
		h.Del("Cache-Control")
	}
	e.w.WriteHeader(status)
}

func (e *eventWriter) Flush() {
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

// Write frames b: all its frames are written to the connection at once.
func (e *eventWriter) Write(b []byte) (int, error) {
	if e.status == 0 {
		e.WriteHeader(http.StatusOK)
	}
	if e.status != http.StatusOK {
		return e.w.Write(b)
	}
	e.buf.Reset()
	switch e.mode {
	case framePayloadPart:
		cut := (len(b) + 1) / 2
		for _, part := range [][]byte{b[:cut], b[cut:]} {
			if len(part) > 0 {
				e.frame("PayloadPart", "application/octet-stream", part)
			}
		}
	default:
		for _, ev := range splitSSE(b) {
			if e.mode == frameEvents {
				e.frame(ev.typ, "application/json", ev.data)
				continue
			}
			payload := append([]byte(`{"bytes":"`), base64.StdEncoding.EncodeToString(ev.data)...)
			e.frame("chunk", "application/json", append(payload, `"}`...))
		}
	}
	if _, err := e.w.Write(e.buf.Bytes()); err != nil {
		return 0, err
	}
	return len(b), nil
}

// frame encodes one event frame into e.buf.
func (e *eventWriter) frame(typ, contentType string, payload []byte) {
	var hs eventstream.Headers
	hs.Set(":message-type", eventstream.StringValue("event"))
	hs.Set(":event-type", eventstream.StringValue(typ))
	hs.Set(":content-type", eventstream.StringValue(contentType))
	_ = e.enc.Encode(&e.buf, eventstream.Message{Headers: hs, Payload: payload})
}

// sseEvent is one event of the mock's own SSE output.
type sseEvent struct {
	typ  string
	data []byte
}

// splitSSE splits the mock's own SSE output (well-formed events of an
// optional event line and one data line) into events; an event with no
// event line is typed contentBlockDelta (the malformed-event fault).
func splitSSE(b []byte) []sseEvent {
	var out []sseEvent
	for _, block := range bytes.Split(b, []byte("\n\n")) {
		if len(block) == 0 {
			continue
		}
		ev := sseEvent{typ: "contentBlockDelta"}
		for _, line := range bytes.Split(block, []byte("\n")) {
			if t, ok := bytes.CutPrefix(line, []byte("event: ")); ok {
				ev.typ = string(t)
			} else if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				ev.data = d
			} else if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				ev.data = d
			}
		}
		out = append(out, ev)
	}
	return out
}
