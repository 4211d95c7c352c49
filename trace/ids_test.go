package trace

import (
	"math"
	"testing"
)

// TestIDIndexNumbersLikeAMap checks idIndex against a plain map over id
// sequences that exercise the slice, the map and the moves between them.
func TestIDIndexNumbersLikeAMap(t *testing.T) {
	seqs := map[string][]int64{
		"dense":    {0, 1, 2, 1, 0, 3},
		"offset":   {50_000, 50_001, 50_000},
		"negative": {-1, -5, -1, math.MinInt64, math.MaxInt64, math.MinInt64},
		"huge":     {1 << 40, 2, 1 << 40},
	}
	// An id far ahead lands in the map, then the slice grows past it and
	// takes it over.
	var moved []int64
	moved = append(moved, 300_000, 1<<20)
	for i := range int64(400_000) {
		moved = append(moved, i)
	}
	moved = append(moved, 300_000, 1<<20, 1<<20+1)
	seqs["moved"] = moved

	for name, seq := range seqs {
		var x idIndex
		ref := map[int64]uint32{}
		for i, id := range seq {
			num, added := x.number(id)
			want, had := ref[id]
			if !had {
				want = uint32(len(ref))
				ref[id] = want
			}
			if num != want || added == had {
				t.Fatalf("%s: step %d id %d: got %d added=%v, want %d added=%v", name, i, id, num, added, want, !had)
			}
		}
		for k := range x.sparse {
			if 0 <= k && k < int64(len(x.dense)) {
				t.Errorf("%s: id %d in the map though the slice covers it", name, k)
			}
		}
	}
}
