package metrics

import (
	"fmt"
	"slices"
	"testing"
)

// chunkedOf returns a chunked log of vs.
func chunkedOf[T any](vs ...T) *chunked[T] {
	c := &chunked[T]{}
	c.pushAll(vs)
	return c
}

// of returns request i's inter-chunk latencies as one slice (the
// reference sweeps read them so).
func (s *iclSet) of(i int) []float64 { return slices.Collect(s.icl.values(s.span(i))) }

// chunkVal is the test's i-th value: distinct, not the index itself.
func chunkVal(i int) float64 { return float64(3*i + 1) }

func TestLocate(t *testing.T) {
	// The blocks hold 64, 128, 256, 512, then 1,024 values: they start at
	// 0, 64, 192, 448, 960, 1,984, 3,008.
	for _, c := range []struct{ i, block, j int }{
		{0, 0, 0}, {63, 0, 63}, {64, 1, 0}, {191, 1, 127}, {192, 2, 0}, {447, 2, 255},
		{448, 3, 0}, {959, 3, 511}, {960, 4, 0}, {1983, 4, 1023}, {1984, 5, 0}, {3008, 6, 0}, {3500, 6, 492},
	} {
		if b, j := locate(c.i); b != c.block || j != c.j {
			t.Errorf("locate(%d) = block %d index %d, want block %d index %d", c.i, b, j, c.block, c.j)
		}
	}
}

func TestChunked(t *testing.T) {
	for _, c := range []struct {
		n, capacity int // capacity: the blocks' sizes added up by hand
	}{
		{0, 0}, {1, 64}, {63, 64}, {64, 64}, {65, 192},
		{959, 960}, {960, 960}, {961, 1984},
		{1983, 1984}, {1984, 1984}, {1985, 3008},
		{5000, 5056}, // 960 + 4 blocks of 1,024
	} {
		t.Run(fmt.Sprint(c.n), func(t *testing.T) {
			want := make([]float64, c.n)
			for i := range want {
				want[i] = chunkVal(i)
			}
			var one, all chunked[float64]
			var firsts []*float64 // each block's first value, taken as it was added
			for i, v := range want {
				one.push(v)
				if _, j := locate(i); j == 0 {
					firsts = append(firsts, one.at(i))
				}
			}
			// The same values added in runs of 1 to 99, across block ends.
			for lo, k := 0, 1; lo < c.n; lo, k = lo+k, k%99+1 {
				all.pushAll(want[lo:min(lo+k, c.n)])
			}
			for _, l := range []*chunked[float64]{&one, &all} {
				check(t, l, want, c.capacity)
			}
			// No block moved as the log grew.
			for b, p := range firsts {
				start := 0
				for k := range b {
					start += blockCap(k)
				}
				if p != one.at(start) || *p != chunkVal(start) {
					t.Errorf("block %d moved or changed", b)
				}
			}
		})
	}
}

// check compares l with want and its capacity with capacity.
func check(t *testing.T, l *chunked[float64], want []float64, capacity int) {
	t.Helper()
	n := len(want)
	if l.len() != n || l.capacity() != capacity {
		t.Fatalf("len %d capacity %d, want %d and %d", l.len(), l.capacity(), n, capacity)
	}
	if l.capacity()-l.len() >= blockLen && n > 0 {
		t.Errorf("%d values unused", l.capacity()-l.len())
	}
	for i := range n {
		if *l.at(i) != want[i] {
			t.Fatalf("at(%d) = %v, want %v", i, *l.at(i), want[i])
		}
	}
	var got []float64
	for i, p := range l.all() {
		if i != len(got) {
			t.Fatalf("all yielded index %d after %d values", i, len(got))
		}
		got = append(got, *p)
	}
	if !slices.Equal(got, want) {
		t.Errorf("all yielded %d values, not the ones added in order", len(got))
	}
	if got := l.appendTo([]float64{-1}); !slices.Equal(got[1:], want) || got[0] != -1 {
		t.Errorf("appendTo gave %d values, not the ones added in order", len(got)-1)
	}
	dst := make([]float64, n)
	if l.copyTo(dst); !slices.Equal(dst, want) {
		t.Errorf("copyTo gave other values")
	}
	for _, r := range [][2]int{{0, n}, {0, 0}, {n, n}, {n / 3, n / 2}, {max(n-70, 0), n}, {min(60, n), min(200, n)}} {
		if got := slices.Collect(l.values(r[0], r[1])); !slices.Equal(got, want[r[0]:r[1]]) {
			t.Errorf("values(%d, %d) = %d values, not the ones added", r[0], r[1], len(got))
		}
	}
	// Stopping early yields no more.
	k := 0
	for range l.values(0, n) {
		if k++; k == 2 {
			break
		}
	}
	if k != min(n, 2) {
		t.Errorf("values went on after break: %d", k)
	}
}

// TestChunkedCapped: a capped log never has room for more than its limit.
func TestChunkedCapped(t *testing.T) {
	for _, c := range []struct{ limit, n, capacity int }{
		{1, 1, 1},
		{50, 50, 50},
		{1000, 1000, 1000}, // 960 + 40
		{1000, 961, 1000},  // the last block sized to the limit
		{1000, 500, 960},   // not there yet: the head blocks only
		{5000, 5000, 5000}, // 960 + 3 blocks + 968
		{exactCap, 20, 64}, // a short log stays small
	} {
		var l chunked[float64]
		want := make([]float64, c.n)
		for i := range want {
			want[i] = chunkVal(i)
			l.pushCapped(want[i], c.limit)
		}
		t.Run(fmt.Sprintf("%d of %d", c.n, c.limit), func(t *testing.T) { check(t, &l, want, c.capacity) })
	}
}

func TestICLSet(t *testing.T) {
	// Lists of 0 to 300 latencies, so that many cross a block's end.
	var s iclSet
	var lists [][]float64
	next := 0
	for i := range 40 {
		list := make([]float64, (i*37)%301)
		for k := range list {
			list[k] = chunkVal(next)
			next++
		}
		lists = append(lists, list)
		s.push(list)
	}
	if !s.any() || s.icl.len() != next || s.ends.len() != len(lists) {
		t.Fatalf("%d latencies of %d requests, want %d of %d", s.icl.len(), s.ends.len(), next, len(lists))
	}
	for i, want := range lists {
		if got := s.of(i); !slices.Equal(got, want) && len(want)+len(got) > 0 {
			t.Errorf("request %d: %d latencies, not the %d added", i, len(got), len(want))
		}
	}
	var empty iclSet
	empty.push(nil)
	if lo, hi := empty.span(0); empty.any() || lo != 0 || hi != 0 {
		t.Errorf("no latencies: any %v, span %d..%d", empty.any(), lo, hi)
	}
}
