package sse

import (
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// readAllReleasing reads every message as readAll does, releasing the
// reader's buffer whenever it is idle between two calls to Next, as a
// parked stream does.
func readAllReleasing(t *testing.T, chunks []string) ([]Message, int, error) {
	t.Helper()
	var clk counter
	r := NewReader(&chunkReader{chunks: append([]string(nil), chunks...)}, clk.now)
	var got []Message
	released := 0
	for range 10000 {
		if r.Idle() && len(r.buf) == initialBuf {
			released++
		}
		r.Release()
		m, err := r.Next()
		if err != nil {
			return got, released, err
		}
		m.Data = append([]byte(nil), m.Data...)
		got = append(got, m)
	}
	t.Fatal("reader did not end")
	return nil, 0, nil
}

// TestReleaseChangesNoMessage: releasing the buffer whenever the reader is
// idle, mid-message included (a split after "data: x\n" leaves the
// message's data aliasing the buffer), gives the same messages, stamps and
// errors as never releasing it, for every case split every way.
func TestReleaseChangesNoMessage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	releases := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			splits := [][]string{{tc.stream}}
			for i := 0; i <= len(tc.stream); i++ {
				splits = append(splits, []string{tc.stream[:i], tc.stream[i:]})
			}
			for range 20 {
				splits = append(splits, randomSplit(rng, tc.stream))
			}
			for _, chunks := range splits {
				want, wantErr := readAll(t, chunks)
				got, n, err := readAllReleasing(t, chunks)
				releases += n
				if !errors.Is(err, wantErr) && err.Error() != wantErr.Error() {
					t.Fatalf("chunks %q: err %v, want %v", chunks, err, wantErr)
				}
				if len(got) != len(want) {
					t.Fatalf("chunks %q: %d messages, want %d", chunks, len(got), len(want))
				}
				for i := range want {
					g, w := got[i], want[i]
					if g.PerfNS != w.PerfNS || g.Event != w.Event || g.ID != w.ID || string(g.Data) != string(w.Data) {
						t.Fatalf("chunks %q: message %d = %+v, want %+v", chunks, i, g, w)
					}
				}
			}
		})
	}
	if releases == 0 {
		t.Fatal("no buffer was ever released")
	}
}

// TestReleaseOnlyWhenIdle: a buffer holding unparsed bytes, or one grown
// past the initial size, is kept; an idle one goes, and the next Next
// reads into a buffer again.
func TestReleaseOnlyWhenIdle(t *testing.T) {
	var clk counter
	r := NewReader(&chunkReader{chunks: []string{"data: a\n\ndata: b\n\n", "data: c\n\n"}}, clk.now)
	if m, err := r.Next(); err != nil || string(m.Data) != "a" {
		t.Fatalf("first message %q, %v", m.Data, err)
	}
	r.Release() // "data: b\n\n" waits in the buffer
	if r.buf == nil {
		t.Fatal("released a buffer with bytes to parse")
	}
	if m, err := r.Next(); err != nil || string(m.Data) != "b" {
		t.Fatalf("second message %q, %v", m.Data, err)
	}
	r.Release()
	if r.buf != nil || !r.Idle() {
		t.Fatalf("idle reader kept its buffer (%d bytes)", len(r.buf))
	}
	if m, err := r.Next(); err != nil || string(m.Data) != "c" {
		t.Fatalf("third message %q, %v", m.Data, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("end: %v, want io.EOF", err)
	}

	long := "data: " + strings.Repeat("x", 3*initialBuf) + "\n\n"
	r = NewReader(&chunkReader{chunks: []string{long}}, clk.now)
	if m, err := r.Next(); err != nil || len(m.Data) != 3*initialBuf {
		t.Fatalf("long message: %d bytes, %v", len(m.Data), err)
	}
	r.Release()
	if len(r.buf) <= initialBuf {
		t.Fatalf("a grown buffer (%d bytes) was released", len(r.buf))
	}
}
