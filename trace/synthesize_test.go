package trace

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// handRows is a four-row trace with block size 4: hash_ids 1 (three rows)
// and 2 (two rows) are shared, so the shared prefixes are [1 2], [1 2],
// [] and [1], and the prompts 2, 4, 6 and 1 tokens.
func handRows() []Request {
	rows := []struct {
		ts       float64
		isl, osl int64
		ids      []int64
	}{
		{1000, 10, 5, []int64{1, 2, 3}},
		{2001, 12, 7, []int64{1, 2, 4}},
		{3500, 6, 3, []int64{5, 6}},
		{4000, 5, 2, []int64{1, 7}},
	}
	reqs := make([]Request, len(rows))
	for i, r := range rows {
		reqs[i] = Request{InputLength: r.isl, HasInputLength: true, OutputLength: r.osl, HasOutputLength: true,
			Timestamp: r.ts, HasTimestamp: true, HashIDs: r.ids}
	}
	return reqs
}

// want is one row's expected result.
type want struct {
	ts       float64
	isl, osl int64
	ids      []int64
}

// TestSynthesisHandComputed checks each knob on handRows against values
// worked out by hand from AIPerf 0.13's Synthesizer (and, where marked,
// what that Synthesizer itself printed for the same rows).
func TestSynthesisHandComputed(t *testing.T) {
	tests := []struct {
		name string
		set  func(*Synthesis)
		want []want
	}{{
		// Nothing changes but the timestamps (2001/2 truncates), yet the
		// unique blocks are renumbered after the largest shared id, 2.
		name: "speedup 2",
		set:  func(s *Synthesis) { s.SpeedupRatio = 2 },
		want: []want{{500, 10, 5, []int64{1, 2, 4}}, {1000, 12, 7, []int64{1, 2, 5}}, {1750, 6, 3, []int64{6, 7}}, {2000, 5, 2, []int64{1, 8}}},
	}, {
		// Shared block h becomes 2h, 2h+1; fresh ids start after (2+1)·2.
		name: "prefix len x2",
		set:  func(s *Synthesis) { s.PrefixLenMultiplier = 2 },
		want: []want{{1000, 18, 5, []int64{2, 3, 4, 5, 7}}, {2001, 20, 7, []int64{2, 3, 4, 5, 8}}, {3500, 6, 3, []int64{9, 10}}, {4000, 9, 2, []int64{2, 3, 11}}},
	}, {
		// ceil(2·1.5) = 3 and ceil(1·1.5) = 2 prefix blocks, the extra one fresh.
		name: "prefix len x1.5",
		set:  func(s *Synthesis) { s.PrefixLenMultiplier = 1.5 },
		want: []want{{1000, 14, 5, []int64{1, 2, 4, 5}}, {2001, 16, 7, []int64{1, 2, 6, 7}}, {3500, 6, 3, []int64{8, 9}}, {4000, 9, 2, []int64{1, 10, 11}}},
	}, {
		// max(1, int(n/2)) prefix blocks. Row 3 has none to keep: AIPerf
		// still counts 4 tokens for one (ISL 10); we keep its 6.
		name: "prefix len x0.5",
		set:  func(s *Synthesis) { s.PrefixLenMultiplier = 0.5 },
		want: []want{{1000, 6, 5, []int64{1, 4}}, {2001, 8, 7, []int64{1, 5}}, {3500, 6, 3, []int64{6, 7}}, {4000, 5, 2, []int64{1, 8}}},
	}, {
		name: "prompt len x2",
		set:  func(s *Synthesis) { s.PromptLenMultiplier = 2 },
		want: []want{{1000, 12, 5, []int64{1, 2, 4}}, {2001, 16, 7, []int64{1, 2, 5, 6}}, {3500, 12, 3, []int64{7, 8, 9}}, {4000, 6, 2, []int64{1, 10}}},
	}, {
		// Prompts 1, 2, 3 and int(0.5) = 0 tokens.
		name: "prompt len x0.5",
		set:  func(s *Synthesis) { s.PromptLenMultiplier = 0.5 },
		want: []want{{1000, 9, 5, []int64{1, 2, 4}}, {2001, 10, 7, []int64{1, 2, 5}}, {3500, 3, 3, []int64{6}}, {4000, 4, 2, []int64{1}}},
	}, {
		// 7.5 → 8, 10.5 → 10, 4.5 → 4, 3: Python's round, half to even.
		name: "output len x1.5",
		set:  func(s *Synthesis) { s.OutputLenMultiplier = 1.5 },
		want: []want{{1000, 10, 8, []int64{1, 2, 4}}, {2001, 12, 10, []int64{1, 2, 5}}, {3500, 6, 4, []int64{6, 7}}, {4000, 5, 3, []int64{1, 8}}},
	}, {
		name: "output len x0 is at least 1",
		set:  func(s *Synthesis) { s.OutputLenMultiplier = 0 },
		want: []want{{1000, 10, 1, []int64{1, 2, 4}}, {2001, 12, 1, []int64{1, 2, 5}}, {3500, 6, 1, []int64{6, 7}}, {4000, 5, 1, []int64{1, 8}}},
	}, {
		// ISL 12, 16, 12 capped at 9 keep ceil(9/4) = 3 blocks (AIPerf
		// leaves row 2 four blocks that 9 tokens cannot fill).
		name: "prompt len x2, max ISL 9",
		set:  func(s *Synthesis) { s.PromptLenMultiplier, s.MaxISL = 2, 9 },
		want: []want{{1000, 9, 5, []int64{1, 2, 4}}, {2001, 9, 7, []int64{1, 2, 5}}, {3500, 9, 3, []int64{7, 8, 9}}, {4000, 6, 2, []int64{1, 10}}},
	}, {
		name: "output len x1.5, max OSL 4",
		set:  func(s *Synthesis) { s.OutputLenMultiplier, s.MaxOSL = 1.5, 4 },
		want: []want{{1000, 10, 4, []int64{1, 2, 4}}, {2001, 12, 4, []int64{1, 2, 5}}, {3500, 6, 4, []int64{6, 7}}, {4000, 5, 3, []int64{1, 8}}},
	}, {
		// Without a multiplier only the caps apply: no renumbering.
		name: "caps alone",
		set:  func(s *Synthesis) { s.MaxISL, s.MaxOSL = 5, 3 },
		want: []want{{1000, 5, 3, []int64{1, 2}}, {2001, 5, 3, []int64{1, 2}}, {3500, 5, 3, []int64{5, 6}}, {4000, 5, 2, []int64{1, 7}}},
	}, {
		name: "defaults change nothing",
		set:  func(*Synthesis) {},
		want: []want{{1000, 10, 5, []int64{1, 2, 3}}, {2001, 12, 7, []int64{1, 2, 4}}, {3500, 6, 3, []int64{5, 6}}, {4000, 5, 2, []int64{1, 7}}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := DefaultSynthesis()
			s.BlockSize = 4
			tt.set(&s)
			reqs := handRows()
			if err := s.Apply(reqs, nil); err != nil {
				t.Fatal(err)
			}
			checkRows(t, reqs, tt.want)
		})
	}
}

func checkRows(t *testing.T, got []Request, want []want) {
	t.Helper()
	for i, w := range want {
		g := got[i]
		if g.Timestamp != w.ts || g.InputLength != w.isl || g.OutputLength != w.osl || !slices.Equal(g.HashIDs, w.ids) {
			t.Errorf("row %d: got ts %v isl %d osl %d ids %v, want ts %v isl %d osl %d ids %v",
				i+1, g.Timestamp, g.InputLength, g.OutputLength, g.HashIDs, w.ts, w.isl, w.osl, w.ids)
		}
	}
}

// TestSynthesisSharedLastBlock: two identical rows share every block, the
// partial last one too. AIPerf fails on them ("input_len < prefix_len");
// here the partial block keeps its 2 tokens.
func TestSynthesisSharedLastBlock(t *testing.T) {
	for _, tt := range []struct {
		name string
		m    float64
		want []want
	}{
		{"x1", 1, []want{{0, 6, 1, []int64{1, 2}}, {0, 6, 1, []int64{1, 2}}}},
		// [1 2] → [2 3 4 5]: 4 blocks, the last still 2 tokens.
		{"x2", 2, []want{{0, 14, 1, []int64{2, 3, 4, 5}}, {0, 14, 1, []int64{2, 3, 4, 5}}}},
		// One full block kept.
		{"x0.5", 0.5, []want{{0, 4, 1, []int64{1}}, {0, 4, 1, []int64{1}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := DefaultSynthesis()
			s.BlockSize, s.SpeedupRatio, s.PrefixLenMultiplier = 4, 2, tt.m
			reqs := []Request{
				{InputLength: 6, HasInputLength: true, HashIDs: []int64{1, 2}, OutputLength: 1, HasOutputLength: true},
				{InputLength: 6, HasInputLength: true, HashIDs: []int64{1, 2}, OutputLength: 1, HasOutputLength: true},
			}
			if err := s.Apply(reqs, nil); err != nil {
				t.Fatal(err)
			}
			checkRows(t, reqs, tt.want)
		})
	}
}

// TestSynthesisRowsWithoutBlocks: rows without hash_ids keep their length
// (AIPerf's trace.get("input_length", block_size)); a literal row keeps no
// input_length; only timestamps and output lengths move.
func TestSynthesisRowsWithoutBlocks(t *testing.T) {
	s := DefaultSynthesis()
	s.BlockSize, s.SpeedupRatio, s.PromptLenMultiplier = 4, 4, 3
	reqs := []Request{
		{InputLength: 7, HasInputLength: true, Timestamp: 9, HasTimestamp: true},
		{Literal: true, Timestamp: 10, HasTimestamp: true, OutputLength: 3, HasOutputLength: true},
		{}, // neither: AIPerf writes input_length = block size
	}
	if err := s.Apply(reqs, nil); err != nil {
		t.Fatal(err)
	}
	checkRows(t, reqs, []want{{2, 7, 0, nil}, {2, 0, 3, nil}, {0, 4, 0, nil}})
	if reqs[1].HasInputLength || !reqs[2].HasInputLength {
		t.Errorf("HasInputLength: literal %v, bare %v; want false, true", reqs[1].HasInputLength, reqs[2].HasInputLength)
	}
}

// TestSynthesisRootMultiplier: with R trees every row's blocks move
// together by tree·9 (the largest id after renumbering is 8).
func TestSynthesisRootMultiplier(t *testing.T) {
	s := DefaultSynthesis()
	s.BlockSize, s.PrefixRootMultiplier = 4, 3
	reqs := handRows()
	if err := s.Apply(reqs, rand.New(rand.NewPCG(1, 2))); err != nil {
		t.Fatal(err)
	}
	base := [][]int64{{1, 2, 4}, {1, 2, 5}, {6, 7}, {1, 8}}
	for i, r := range reqs {
		tree := (r.HashIDs[0] - base[i][0]) / 9
		shifted := make([]int64, len(base[i]))
		for k, h := range base[i] {
			shifted[k] = h + 9*tree
		}
		if tree < 0 || tree > 2 || !slices.Equal(r.HashIDs, shifted) {
			t.Errorf("row %d: ids %v, want %v shifted by 0, 9 or 18", i+1, r.HashIDs, base[i])
		}
	}
}

func TestSynthesisCheck(t *testing.T) {
	tests := []struct {
		set  func(*Synthesis)
		want string
	}{
		{func(s *Synthesis) { s.SpeedupRatio = 0 }, "--synthesis-speedup-ratio must be a finite number > 0, got 0"},
		{func(s *Synthesis) { s.PrefixLenMultiplier = -1 }, "--synthesis-prefix-len-multiplier must be"},
		{func(s *Synthesis) { s.PromptLenMultiplier = 0 }, "--synthesis-prompt-len-multiplier must be"},
		{func(s *Synthesis) { s.OutputLenMultiplier = -0.5 }, "--synthesis-output-len-multiplier must be a finite number >= 0"},
		{func(s *Synthesis) { s.PrefixRootMultiplier = 0 }, "--synthesis-prefix-root-multiplier must be >= 1, got 0"},
		{func(s *Synthesis) { s.MaxISL = -1 }, "--synthesis-max-isl must be >= 1"},
		{func(s *Synthesis) { s.MaxOSL = -1 }, "--synthesis-max-osl must be >= 1"},
	}
	for _, tt := range tests {
		s := DefaultSynthesis()
		tt.set(&s)
		err := s.Check("synthesis-")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check: %v, want %q", err, tt.want)
		}
	}
	if err := DefaultSynthesis().Check(""); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// TestSynthesisTooLarge: a multiplier that would make a row of more than
// 2^20 blocks fails instead of allocating it.
func TestSynthesisTooLarge(t *testing.T) {
	for _, set := range []func(*Synthesis){
		func(s *Synthesis) { s.PrefixLenMultiplier = 1e7 },
		func(s *Synthesis) { s.PromptLenMultiplier = 1e12 },
	} {
		s := DefaultSynthesis()
		s.BlockSize = 4
		set(&s)
		if err := s.Apply(handRows(), nil); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
}

// TestSynthesisKeepsRowsValid: for random valid traces and settings, every
// output row with blocks still satisfies the hash_ids rule of §4.3 (its
// last block holds 1..block size tokens) and the caps hold.
func TestSynthesisKeepsRowsValid(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	mults := []float64{0.3, 0.5, 1, 1.5, 2, 3.7}
	for trial := range 200 {
		b := int64(1 + rng.IntN(16))
		reqs := make([]Request, 1+rng.IntN(30))
		for i := range reqs {
			n := 1 + rng.IntN(6)
			ids := make([]int64, n)
			for k := range ids {
				if k < 3 {
					ids[k] = int64(rng.IntN(3)*10 + k) // shared, at one position
				} else {
					ids[k] = int64(1000 + i*10 + k)
				}
			}
			isl := int64(n-1)*b + 1 + rng.Int64N(b)
			reqs[i] = Request{InputLength: isl, HasInputLength: true, HashIDs: ids, OutputLength: rng.Int64N(50), HasOutputLength: true}
		}
		s := DefaultSynthesis()
		s.BlockSize = int(b)
		s.PrefixLenMultiplier = mults[rng.IntN(len(mults))]
		s.PromptLenMultiplier = mults[rng.IntN(len(mults))]
		s.OutputLenMultiplier = mults[rng.IntN(len(mults))]
		s.PrefixRootMultiplier = 1 + rng.IntN(3)
		if rng.IntN(2) == 0 {
			s.MaxISL, s.MaxOSL = 1+rng.Int64N(40), 1+rng.Int64N(20)
		}
		if err := s.Apply(reqs, rng); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		for i, r := range reqs {
			if n := int64(len(r.HashIDs)); n > 0 {
				if final := r.InputLength - (n-1)*b; final < 1 || final > b {
					t.Fatalf("trial %d %+v row %d: ISL %d with %d blocks of %d", trial, s, i, r.InputLength, n, b)
				}
			}
			if s.MaxISL > 0 && r.InputLength > s.MaxISL || s.MaxOSL > 0 && r.OutputLength > s.MaxOSL || r.OutputLength < 1 && s.Transforms() {
				t.Fatalf("trial %d %+v row %d: ISL %d OSL %d past the caps", trial, s, i, r.InputLength, r.OutputLength)
			}
		}
	}
}
