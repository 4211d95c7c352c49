package custom

import (
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/trace"
)

// synthTrace is a mooncake trace with block size 4: hash_ids 1 (three
// rows) and 2 (two rows) are shared, so the shared prefixes are [1 2],
// [1 2], [] and [1] and the unique prompts 2, 4, 6 and 1 tokens.
const synthTrace = `{"timestamp": 1000, "input_length": 10, "output_length": 5, "hash_ids": [1, 2, 3]}
{"timestamp": 2001, "input_length": 12, "output_length": 7, "hash_ids": [1, 2, 4]}
{"timestamp": 3500, "input_length": 6, "output_length": 3, "hash_ids": [5, 6]}
{"timestamp": 4000, "input_length": 5, "output_length": 2, "hash_ids": [1, 7]}
{"timestamp": 4500, "text_input": "hello there", "output_length": 9}
`

// TestTraceSynthesis loads synthTrace with --synthesis-* settings and
// checks the turns against values worked out by hand (the same rows as
// trace's TestSynthesisHandComputed).
func TestTraceSynthesis(t *testing.T) {
	tests := []struct {
		name     string
		set      func(*trace.Synthesis)
		maxISL   int
		maxOSL   int
		isl      []int
		osl      []int
		ts       []float64
		rowsLeft int
	}{{
		name: "none",
		set:  func(*trace.Synthesis) {},
		isl:  []int{10, 12, 6, 5}, osl: []int{5, 7, 3, 2, 9}, ts: []float64{1000, 2001, 3500, 4000, 4500},
	}, {
		// 2001/4 = 500.25 and 4500/4 truncate to whole ms.
		name: "speedup 4",
		set:  func(s *trace.Synthesis) { s.SpeedupRatio = 4 },
		isl:  []int{10, 12, 6, 5}, osl: []int{5, 7, 3, 2, 9}, ts: []float64{250, 500, 875, 1000, 1125},
	}, {
		// Prompts doubled: 8+4, 8+8, 12, 4+2.
		name: "prompt x2",
		set:  func(s *trace.Synthesis) { s.PromptLenMultiplier = 2 },
		isl:  []int{12, 16, 12, 6}, osl: []int{5, 7, 3, 2, 9}, ts: []float64{1000, 2001, 3500, 4000, 4500},
	}, {
		// Prefixes doubled: 16+2, 16+4, 6, 8+1.
		name: "prefix x2",
		set:  func(s *trace.Synthesis) { s.PrefixLenMultiplier = 2 },
		isl:  []int{18, 20, 6, 9}, osl: []int{5, 7, 3, 2, 9}, ts: []float64{1000, 2001, 3500, 4000, 4500},
	}, {
		// 7.5 → 8, 10.5 → 10, 4.5 → 4, 3, 13.5 → 14, then capped at 9.
		name:   "output x1.5, max OSL 9",
		set:    func(s *trace.Synthesis) { s.OutputLenMultiplier = 1.5 },
		maxOSL: 9,
		isl:    []int{10, 12, 6, 5}, osl: []int{8, 9, 4, 3, 9}, ts: []float64{1000, 2001, 3500, 4000, 4500},
	}, {
		// Row 2 (12 > 11) is dropped before synthesis, as in AIPerf; then
		// rows 1 and 3 grow past 11 and are capped. Without row 2, hash_id
		// 2 is no longer shared: the prefixes are [1], [], [1].
		name:   "prompt x2, max ISL 11",
		set:    func(s *trace.Synthesis) { s.PromptLenMultiplier = 2 },
		maxISL: 11,
		isl:    []int{11, 11, 6}, osl: []int{5, 3, 2, 9}, ts: []float64{1000, 3500, 4000, 4500},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustTrace(t, "s.jsonl", "", synthTrace, func(o *Options) {
				s := trace.DefaultSynthesis()
				tt.set(&s)
				o.Synthesis, o.BlockSize, o.MaxISL, o.MaxOSL = &s, 4, tt.maxISL, tt.maxOSL
			})
			got := turns(d)
			if len(got) != len(tt.osl) {
				t.Fatalf("%d turns, want %d", len(got), len(tt.osl))
			}
			for i, tu := range got {
				if i < len(tt.isl) && tu.InputTokens != tt.isl[i] {
					t.Errorf("turn %d: InputTokens %d, want %d", i+1, tu.InputTokens, tt.isl[i])
				}
				if tu.MaxTokens != tt.osl[i] || tu.TimestampMS != tt.ts[i] {
					t.Errorf("turn %d: MaxTokens %d at %v ms, want %d at %v", i+1, tu.MaxTokens, tu.TimestampMS, tt.osl[i], tt.ts[i])
				}
			}
			if last := got[len(got)-1]; len(last.Texts) != 1 || last.Texts[0] != "hello there" {
				t.Errorf("text_input turn: %q", last.Texts)
			}
		})
	}
}

// TestTraceSynthesisSharesPrefixes: rows that share a prefix after
// synthesis get byte-identical prompt starts, and prefix-root copies do
// not share with each other.
func TestTraceSynthesisSharesPrefixes(t *testing.T) {
	var b strings.Builder
	for range 40 {
		b.WriteString(`{"input_length": 1100, "hash_ids": [1, 2, 9]}` + "\n")
	}
	s := trace.DefaultSynthesis()
	s.PrefixRootMultiplier = 2
	got := turns(mustTrace(t, "r.jsonl", "", b.String(), func(o *Options) { o.Synthesis = &s }))
	// hash_id 9 is shared too, so every row is all prefix: two distinct
	// prompts, one per tree.
	texts := map[string]int{}
	for _, tu := range got {
		if tu.InputTokens != 1100 {
			t.Errorf("InputTokens %d, want 1100", tu.InputTokens)
		}
		texts[tu.Texts[0]]++
	}
	if len(texts) != 2 {
		t.Errorf("%d distinct prompts, want 2 (one per prefix tree)", len(texts))
	}
}
