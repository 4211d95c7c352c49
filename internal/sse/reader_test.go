package sse

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// want is one expected message; at is the byte offset of its first byte in
// the stream (hand-counted), which decides its timestamp.
type want struct {
	at    int
	event string
	id    string
	data  string
}

var cases = []struct {
	name    string
	stream  string
	want    []want
	wantErr error // io.EOF for a clean end
}{
	{name: "empty", stream: "", wantErr: io.EOF},
	{name: "one", stream: "data: hello\n\n", want: []want{{at: 0, data: "hello"}}, wantErr: io.EOF},
	{name: "multi-line data", stream: "data: a\ndata: b\n\n",
		want: []want{{at: 0, data: "a\nb"}}, wantErr: io.EOF},
	{name: "crlf", stream: "data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n",
		want: []want{{at: 0, data: "a\nb"}, {at: 20, data: "c"}}, wantErr: io.EOF},
	{name: "cr only", stream: "data: a\r\rdata: b\r\r",
		want: []want{{at: 0, data: "a"}, {at: 9, data: "b"}}, wantErr: io.EOF},
	{name: "mixed line ends", stream: "data: a\r\ndata: b\n\r\ndata: c\r\n",
		want: []want{{at: 0, data: "a\nb"}}, wantErr: ErrTruncated},
	{name: "comment block skipped", stream: ": ping\n\ndata: x\n\n",
		want: []want{{at: 8, data: "x"}}, wantErr: io.EOF},
	{name: "comment starts message", stream: ": hi\ndata: x\n\n",
		want: []want{{at: 0, data: "x"}}, wantErr: io.EOF},
	{name: "event and id", stream: "event: add\nid: 7\ndata: 1\n\nid: 8\n\ndata: 2\n\n",
		want: []want{{at: 0, event: "add", id: "7", data: "1"}, {at: 33, id: "8", data: "2"}}, wantErr: io.EOF},
	{name: "id with NUL ignored", stream: "id: 1\n\nid: a\x00b\ndata: x\n\n",
		want: []want{{at: 7, id: "1", data: "x"}}, wantErr: io.EOF},
	{name: "no space after colon", stream: "data:x\n\ndata:  y\n\n",
		want: []want{{at: 0, data: "x"}, {at: 8, data: " y"}}, wantErr: io.EOF},
	{name: "colon in value", stream: "data: {\"a\":1}\n\n",
		want: []want{{at: 0, data: `{"a":1}`}}, wantErr: io.EOF},
	{name: "field without colon", stream: "data\n\n",
		want: []want{{at: 0, data: ""}}, wantErr: io.EOF},
	{name: "empty data lines", stream: "data:\ndata:\n\n",
		want: []want{{at: 0, data: "\n"}}, wantErr: io.EOF},
	{name: "event only", stream: "event: ping\n\n",
		want: []want{{at: 0, event: "ping"}}, wantErr: io.EOF},
	{name: "event resets between messages", stream: "event: e\ndata: 1\n\ndata: 2\n\n",
		want: []want{{at: 0, event: "e", data: "1"}, {at: 18, data: "2"}}, wantErr: io.EOF},
	{name: "retry and unknown ignored", stream: "retry: 100\nfoo: bar\nDATA: no\ndata: y\n\n",
		want: []want{{at: 0, data: "y"}}, wantErr: io.EOF},
	{name: "leading blank lines", stream: "\n\n\ndata: z\n\n",
		want: []want{{at: 3, data: "z"}}, wantErr: io.EOF},
	{name: "bom", stream: "\xef\xbb\xbfdata: a\n\n",
		want: []want{{at: 0, data: "a"}}, wantErr: io.EOF},
	{name: "openai stream", stream: "data: {\"x\":1}\n\ndata: {\"x\":2}\n\ndata: [DONE]\n\n",
		want: []want{{at: 0, data: `{"x":1}`}, {at: 15, data: `{"x":2}`}, {at: 30, data: "[DONE]"}}, wantErr: io.EOF},
	{name: "truncated after data line", stream: "data: a\n\ndata: b\n",
		want: []want{{at: 0, data: "a"}}, wantErr: ErrTruncated},
	{name: "truncated partial line", stream: "data: a\n\ndata: b",
		want: []want{{at: 0, data: "a"}}, wantErr: ErrTruncated},
	{name: "truncated event", stream: "event: x\n",
		wantErr: ErrTruncated},
	{name: "partial comment is clean", stream: "data: a\n\n: bye",
		want: []want{{at: 0, data: "a"}}, wantErr: io.EOF},
	{name: "pending id is clean", stream: "data: a\n\nid: 5\n",
		want: []want{{at: 0, data: "a"}}, wantErr: io.EOF},
	{name: "no final blank line after CR", stream: "data: a\r\r",
		want: []want{{at: 0, data: "a"}}, wantErr: io.EOF},
}

// chunkReader returns its chunks one per Read (an empty chunk is a (0, nil)
// read) and then err (io.EOF when nil).
type chunkReader struct {
	chunks []string
	err    error
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	if n < len(c.chunks[0]) {
		c.chunks[0] = c.chunks[0][n:]
	} else {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

// counter is a fake clock: it returns 1, 2, 3, … so a stamp is the 1-based
// number of the Read that returned bytes.
type counter struct{ n int64 }

func (c *counter) now() int64 { c.n++; return c.n }

// expectStamp returns the stamp a message starting at offset at must carry:
// the 1-based index, among non-empty chunks, of the chunk holding that byte.
func expectStamp(chunks []string, at int) int64 {
	var stamp int64
	pos := 0
	for _, c := range chunks {
		if len(c) == 0 {
			continue
		}
		stamp++
		if at < pos+len(c) {
			return stamp
		}
		pos += len(c)
	}
	return -1
}

func readAll(t *testing.T, chunks []string) ([]Message, error) {
	t.Helper()
	var clk counter
	r := NewReader(&chunkReader{chunks: append([]string(nil), chunks...)}, clk.now)
	var got []Message
	for range 10000 {
		m, err := r.Next()
		if err != nil {
			return got, err
		}
		m.Data = append([]byte(nil), m.Data...)
		got = append(got, m)
	}
	t.Fatal("reader did not end")
	return nil, nil
}

func check(t *testing.T, chunks []string, wants []want, wantErr error) {
	t.Helper()
	got, err := readAll(t, chunks)
	if !errors.Is(err, wantErr) {
		t.Fatalf("chunks %q: err = %v, want %v", chunks, err, wantErr)
	}
	if len(got) != len(wants) {
		t.Fatalf("chunks %q: got %d messages %+v, want %d", chunks, len(got), got, len(wants))
	}
	for i, w := range wants {
		g := got[i]
		if g.Event != w.event || g.ID != w.id || string(g.Data) != w.data {
			t.Errorf("chunks %q: message %d = {event %q id %q data %q}, want {event %q id %q data %q}",
				chunks, i, g.Event, g.ID, g.Data, w.event, w.id, w.data)
		}
		if s := expectStamp(chunks, w.at); g.PerfNS != s {
			t.Errorf("chunks %q: message %d PerfNS = %d, want %d", chunks, i, g.PerfNS, s)
		}
	}
}

func TestReaderWhole(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { check(t, []string{tc.stream}, tc.want, tc.wantErr) })
	}
}

func TestReaderOneByte(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			chunks := make([]string, len(tc.stream))
			for i := 0; i < len(tc.stream); i++ {
				chunks[i] = tc.stream[i : i+1]
			}
			check(t, chunks, tc.want, tc.wantErr)
		})
	}
}

func TestReaderEverySplit(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i <= len(tc.stream); i++ {
				check(t, []string{tc.stream[:i], tc.stream[i:]}, tc.want, tc.wantErr)
			}
		})
	}
}

func TestReaderRandomSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for range 50 {
				check(t, randomSplit(rng, tc.stream), tc.want, tc.wantErr)
			}
		})
	}
}

// randomSplit cuts s into chunks of 0 to 7 bytes (0 gives a (0, nil) read).
func randomSplit(rng *rand.Rand, s string) []string {
	var chunks []string
	for len(s) > 0 {
		n := min(rng.IntN(8), len(s))
		chunks = append(chunks, s[:n])
		s = s[n:]
	}
	return chunks
}

func TestReaderStampsFromFirstByteRead(t *testing.T) {
	// Message b starts in read 2 and c's first byte arrives at the end of
	// read 3, though both finish later: stamps follow the first byte.
	chunks := []string{"data: a\n", "\ndata: b\n", "\nd", "", "ata: c\n\n"}
	got, err := readAll(t, chunks)
	if err != io.EOF {
		t.Fatalf("err = %v", err)
	}
	stamps := []int64{got[0].PerfNS, got[1].PerfNS, got[2].PerfNS}
	if fmt.Sprint(stamps) != "[1 2 3]" {
		t.Errorf("stamps = %v, want [1 2 3]", stamps)
	}
}

// slowReader simulates a network: each Read advances a fake time by 10.
type slowReader struct {
	chunkReader
	t *int64
}

func (s *slowReader) Read(p []byte) (int, error) {
	*s.t += 10
	return s.chunkReader.Read(p)
}

func TestReaderStampTakenAfterRead(t *testing.T) {
	var now int64
	r := NewReader(&slowReader{chunkReader{chunks: []string{"data: a\n\ndata: b\n\n"}}, &now},
		func() int64 { return now })
	for i := range 2 {
		m, err := r.Next()
		if err != nil || m.PerfNS != 10 {
			t.Fatalf("message %d: PerfNS %d err %v, want 10 (time after the read)", i, m.PerfNS, err)
		}
	}
}

func TestReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	var clk counter
	r := NewReader(&chunkReader{chunks: []string{"data: a\n\ndata: b\n"}, err: boom}, clk.now)
	if m, err := r.Next(); err != nil || string(m.Data) != "a" {
		t.Fatalf("first = %q, %v", m.Data, err)
	}
	for range 2 { // sticky
		_, err := r.Next()
		if !errors.Is(err, boom) || errors.Is(err, ErrTruncated) {
			t.Fatalf("err = %v, want wrapped boom", err)
		}
	}
}

func TestReaderNoProgress(t *testing.T) {
	var clk counter
	r := NewReader(&chunkReader{chunks: make([]string, 1000)}, clk.now)
	if _, err := r.Next(); !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("err = %v, want io.ErrNoProgress", err)
	}
}

func TestReaderTooLarge(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		stream string
		ok     int // messages returned before ErrTooLarge
	}{
		{"long data", 16, "data: 0123456789abcdef\n\n", 0},
		{"many comments", 16, ": 0123\n: 4567\n: 89ab\ndata: x\n\n", 0},
		{"limit is per message", 16, "data: 0123456\n\ndata: 0123456\n\ndata: 0123456789abcdef\n\n", 2},
		{"line beyond buffer", 20000, "data: " + strings.Repeat("x", 30000) + "\n\n", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var clk counter
			r := NewReader(&chunkReader{chunks: []string{tc.stream}}, clk.now)
			r.SetMaxMessage(tc.max)
			for i := range tc.ok {
				if _, err := r.Next(); err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
			}
			if _, err := r.Next(); !errors.Is(err, ErrTooLarge) {
				t.Fatalf("err = %v, want ErrTooLarge", err)
			}
		})
	}
}

func TestReaderLongLineGrowsBuffer(t *testing.T) {
	long := strings.Repeat("y", 100_000)
	got, err := readAll(t, []string{"data: " + long + "\n\n", "data: s\n\n"})
	if err != io.EOF || len(got) != 2 || string(got[0].Data) != long || string(got[1].Data) != "s" {
		t.Fatalf("got %d messages, err %v", len(got), err)
	}
}
