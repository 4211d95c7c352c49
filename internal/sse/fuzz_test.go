package sse

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
)

func FuzzReader(f *testing.F) {
	for _, tc := range cases {
		f.Add([]byte(tc.stream), uint64(1))
	}
	f.Add([]byte("data: a\r\n\r\n\r\rid: \x00\nevent:\n\n"), uint64(7))
	f.Fuzz(func(t *testing.T, stream []byte, seed uint64) {
		whole, wholeErr := fuzzRead(t, []string{string(stream)})
		rng := rand.New(rand.NewPCG(seed, 0))
		chunks := randomSplit(rng, string(stream))
		split, splitErr := fuzzRead(t, chunks)
		if !errors.Is(splitErr, wholeErr) && !errors.Is(wholeErr, splitErr) {
			t.Fatalf("split err %v != whole err %v", splitErr, wholeErr)
		}
		if len(whole) != len(split) {
			t.Fatalf("split gave %d messages, whole %d", len(split), len(whole))
		}
		for i := range whole {
			w, s := whole[i], split[i]
			if w.Event != s.Event || w.ID != s.ID || !bytes.Equal(w.Data, s.Data) {
				t.Fatalf("message %d differs: split %+v whole %+v", i, s, w)
			}
			if w.PerfNS != 1 {
				t.Fatalf("one read, stamp %d", w.PerfNS)
			}
		}
		var last int64
		reads := int64(0)
		for _, c := range chunks {
			if c != "" {
				reads++
			}
		}
		for _, m := range split {
			if m.PerfNS < 1 || m.PerfNS > reads || m.PerfNS < last {
				t.Fatalf("stamp %d out of order or range (last %d, reads %d)", m.PerfNS, last, reads)
			}
			last = m.PerfNS
		}
	})
}

// fuzzRead reads every message, checking the per-message invariants.
func fuzzRead(t *testing.T, chunks []string) ([]Message, error) {
	var clk counter
	total := 0
	for _, c := range chunks {
		total += len(c)
	}
	r := NewReader(&chunkReader{chunks: chunks}, clk.now)
	r.SetMaxMessage(64)
	var got []Message
	for range total + 2 {
		m, err := r.Next()
		if err != nil {
			if err != io.EOF && err != ErrTruncated && err != ErrTooLarge {
				t.Fatalf("unexpected error %v", err)
			}
			return got, err
		}
		if bytes.IndexByte(m.Data, '\r') >= 0 || bytes.ContainsAny([]byte(m.Event+m.ID), "\r\n") ||
			bytes.IndexByte([]byte(m.ID), 0) >= 0 || len(m.Data) > total {
			t.Fatalf("bad message %+v", m)
		}
		m.Data = bytes.Clone(m.Data)
		got = append(got, m)
	}
	t.Fatalf("no end after %d calls", total+2)
	return nil, nil
}
