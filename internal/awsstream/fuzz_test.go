package awsstream

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/aiperf-go/aiperf/internal/sse"
)

// FuzzReader feeds arbitrary bytes, split at random boundaries, to a
// Reader and a PayloadReader: they must never panic, must give the same
// events whole or split, and stamps must never decrease.
func FuzzReader(f *testing.F) {
	a := frame(f, MessageEvent, "contentBlockDelta", []byte(`{"delta":{"text":"hi"}}`))
	p := frame(f, MessageEvent, PayloadPartEvent, []byte("data: {\"n\":1}\n\nda"))
	q := frame(f, MessageEvent, PayloadPartEvent, []byte("ta: [DONE]\n\n"))
	x := frame(f, MessageException, "ModelStreamError", []byte(`{"Message":"x"}`))
	f.Add(a, uint64(1))
	f.Add(append(append([]byte(nil), p...), q...), uint64(2))
	f.Add(append(append([]byte(nil), p...), x...), uint64(3))
	f.Add(a[:len(a)-1], uint64(4))
	f.Add([]byte{0, 0, 0, 16, 0, 0, 0, 0}, uint64(5))
	f.Fuzz(func(t *testing.T, stream []byte, seed uint64) {
		whole, wholeErr := readAll(&chunks{parts: [][]byte{bytes.Clone(stream)}})
		rng := rand.New(rand.NewPCG(seed, 0))
		split, splitErr := readAll(&chunks{parts: randomSplit(rng, stream)})
		if (wholeErr == nil) != (splitErr == nil) || errors.Is(wholeErr, ErrTruncated) != errors.Is(splitErr, ErrTruncated) {
			t.Fatalf("split err %v, whole err %v", splitErr, wholeErr)
		}
		if len(whole) != len(split) {
			t.Fatalf("split gave %d events, whole %d", len(split), len(whole))
		}
		for i := range whole {
			if whole[i] != split[i] {
				t.Fatalf("event %d differs: %q vs %q", i, split[i], whole[i])
			}
		}
		// The PayloadReader and an SSE reader over it.
		src := &chunks{parts: randomSplit(rng, stream)}
		pr := NewPayloadReader(NewReader(src, func() int64 { return src.reads }))
		rd := sse.NewReader(pr, pr.Stamp)
		var last int64
		for {
			m, err := rd.Next()
			if err != nil {
				break
			}
			if m.PerfNS < last {
				t.Fatalf("stamp went back: %d after %d", m.PerfNS, last)
			}
			last = m.PerfNS
		}
	})
}

// readAll returns every event as "messageType/type/payload" and the
// error that ended the stream (nil for io.EOF).
func readAll(src *chunks) ([]string, error) {
	r := NewReader(src, func() int64 { return src.reads })
	var out []string
	var last int64
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if ev.PerfNS < last {
			panic("stamp went back")
		}
		last = ev.PerfNS
		out = append(out, ev.MessageType+"/"+ev.Type+"/"+string(ev.Payload))
	}
}

// randomSplit cuts b into 1 to 8 pieces at random offsets.
func randomSplit(rng *rand.Rand, b []byte) [][]byte {
	b = bytes.Clone(b)
	var out [][]byte
	for len(b) > 0 && len(out) < 7 {
		n := rng.IntN(len(b) + 1)
		if n == 0 {
			n = 1
		}
		out = append(out, b[:n])
		b = b[n:]
	}
	if len(b) > 0 {
		out = append(out, b)
	}
	return out
}
