package awsstream

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/aiperf-go/aiperf/internal/sse"
)

// frame encodes one event frame with aws-sdk-go-v2's Encoder.
func frame(t testing.TB, messageType, typ string, payload []byte) []byte {
	t.Helper()
	var hs eventstream.Headers
	hs.Set(":message-type", eventstream.StringValue(messageType))
	switch messageType {
	case MessageException:
		hs.Set(":exception-type", eventstream.StringValue(typ))
	case MessageError:
		hs.Set(":error-code", eventstream.StringValue(typ))
	default:
		hs.Set(":event-type", eventstream.StringValue(typ))
	}
	hs.Set(":content-type", eventstream.StringValue("application/json"))
	var b bytes.Buffer
	if err := eventstream.NewEncoder().Encode(&b, eventstream.Message{Headers: hs, Payload: payload}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// chunks is a reader returning one chunk per Read, counting the reads.
type chunks struct {
	parts [][]byte
	reads int64
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.parts[0])
	c.parts[0] = c.parts[0][n:]
	if len(c.parts[0]) == 0 {
		c.parts = c.parts[1:]
	}
	c.reads++
	return n, nil
}

func TestReaderEvents(t *testing.T) {
	a := frame(t, MessageEvent, "contentBlockDelta", []byte(`{"delta":{"text":"hi"}}`))
	b := frame(t, MessageEvent, "metadata", []byte(`{"usage":{"inputTokens":3,"outputTokens":1}}`))
	x := frame(t, MessageException, "throttlingException", []byte(`{"message":"slow down"}`))
	bad := append([]byte(nil), a...)
	bad[len(bad)-1] ^= 0xff // message CRC
	tests := []struct {
		name    string
		parts   [][]byte
		types   []string
		stamps  []int64
		wantErr error
		exc     bool
	}{
		{name: "one read", parts: [][]byte{append(append([]byte(nil), a...), b...)},
			types: []string{"contentBlockDelta", "metadata"}, stamps: []int64{1, 1}, wantErr: io.EOF},
		{name: "one read each", parts: [][]byte{a, b},
			types: []string{"contentBlockDelta", "metadata"}, stamps: []int64{1, 2}, wantErr: io.EOF},
		// A frame split over reads keeps the stamp of its first byte.
		{name: "split frame", parts: [][]byte{a[:5], a[5:20], a[20:], b[:1], b[1:]},
			types: []string{"contentBlockDelta", "metadata"}, stamps: []int64{1, 4}, wantErr: io.EOF},
		{name: "exception", parts: [][]byte{a, x},
			types: []string{"contentBlockDelta", "throttlingException"}, stamps: []int64{1, 2}, wantErr: io.EOF, exc: true},
		{name: "truncated", parts: [][]byte{a, b[:len(b)-3]},
			types: []string{"contentBlockDelta"}, stamps: []int64{1}, wantErr: ErrTruncated},
		{name: "bad crc", parts: [][]byte{bad}, wantErr: errors.New("any")},
		{name: "empty", wantErr: io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &chunks{parts: tt.parts}
			r := NewReader(src, func() int64 { return src.reads })
			var types []string
			var stamps []int64
			var err error
			for {
				var ev Event
				if ev, err = r.Next(); err != nil {
					break
				}
				types = append(types, ev.Type)
				stamps = append(stamps, ev.PerfNS)
				if tt.exc && ev.Type == "throttlingException" {
					if _, ok := IsEventError(ev.Err()); !ok {
						t.Errorf("exception frame: Err() = %v", ev.Err())
					}
				}
			}
			if tt.wantErr == io.EOF || tt.wantErr == ErrTruncated {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
			} else if err == nil || errors.Is(err, io.EOF) {
				t.Fatalf("err = %v, want a framing error", err)
			}
			if !equal(types, tt.types) || !equal(stamps, tt.stamps) {
				t.Errorf("types %v stamps %v, want %v %v", types, stamps, tt.types, tt.stamps)
			}
			if _, err2 := r.Next(); err2 != err {
				t.Errorf("error not sticky: %v then %v", err, err2)
			}
		})
	}
}

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPayloadReaderSSE: SSE messages split at arbitrary byte boundaries
// over PayloadPart frames are stamped with the frame that carried their
// first byte.
func TestPayloadReaderSSE(t *testing.T) {
	stream := "data: {\"n\":1}\n\ndata: {\"n\":2}\n\ndata: [DONE]\n\n"
	// Frames: "data: {\"n" | "\":1}\n\nda" | "ta: {\"n\":2}\n\ndata: [DONE]\n\n"
	cuts := []int{0, 9, 19, len(stream)}
	var parts [][]byte
	for i := 1; i < len(cuts); i++ {
		parts = append(parts, frame(t, MessageEvent, PayloadPartEvent, []byte(stream[cuts[i-1]:cuts[i]])))
	}
	parts = append(parts[:1], append([][]byte{frame(t, MessageEvent, "Other", []byte("x"))}, parts[1:]...)...)
	src := &chunks{parts: parts}
	pr := NewPayloadReader(NewReader(src, func() int64 { return src.reads * 10 }))
	rd := sse.NewReader(pr, pr.Stamp)
	var got []string
	var stamps []int64
	for {
		m, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(m.Data))
		stamps = append(stamps, m.PerfNS)
	}
	want := []string{`{"n":1}`, `{"n":2}`, "[DONE]"}
	// Message 1 starts in frame 1 (read 1); message 2 starts in frame 3
	// (read 3: "da"), message 3 in frame 4 (read 4).
	wantStamps := []int64{10, 30, 40}
	if !equal(got, want) || !equal(stamps, wantStamps) {
		t.Errorf("got %q %v, want %q %v", got, stamps, want, wantStamps)
	}
}

func TestPayloadReaderException(t *testing.T) {
	src := &chunks{parts: [][]byte{
		frame(t, MessageEvent, PayloadPartEvent, []byte("data: {}\n\n")),
		frame(t, MessageException, "ModelStreamError", []byte(`{"Message":"boom","ErrorCode":"500"}`)),
	}}
	pr := NewPayloadReader(NewReader(src, func() int64 { return 1 }))
	b, err := io.ReadAll(pr)
	if string(b) != "data: {}\n\n" {
		t.Errorf("bytes %q", b)
	}
	ee, ok := IsEventError(err)
	if !ok || ee.Type != "ModelStreamError" {
		t.Fatalf("err = %v, want ModelStreamError", err)
	}
}
