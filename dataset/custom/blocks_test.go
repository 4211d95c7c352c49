package custom

import (
	"context"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/tokenizer"
)

// blockRow is a hash_ids row for the block tests.
type blockRow struct {
	ids []int
	n   int // input_length
}

// resolve returns job j's text (made now when lazy) and token count.
func (p *blockPrompts) resolve(j int) (string, int) {
	text, lazy, n := p.result(j)
	if lazy != nil {
		text = lazy.Text()
	}
	return text, n
}

// tokensOf returns the token ids of block job j, built from the cache
// independently of the decoding path.
func (p *blockPrompts) tokensOf(j int) []int {
	var ids []int
	for _, r := range p.jobs[j].refs {
		if p.hasSep {
			ids = append(ids, p.sep)
		}
		ids = appendWindow(ids, p.ids, int(r.start), int(r.n))
	}
	return ids
}

// planRows plans rows in order with a fresh blockPrompts for o and block
// size size, changed by tweak (may be nil) once its corpus is loaded, runs
// it, and returns it with each row's job.
func planRows(t *testing.T, o *Options, size int, rows []blockRow, tweak func(*blockPrompts)) (*blockPrompts, []int) {
	t.Helper()
	if o.Tokenizer == nil {
		o.Tokenizer = o.Corpus.Tokenizer()
	}
	p := newBlockPrompts(o, size)
	p.loadCorpus()
	if tweak != nil {
		tweak(p)
	}
	jobs := make([]int, len(rows))
	for i, r := range rows {
		if _, msg := blockFinal(r.n, r.ids, size); msg != "" {
			t.Fatalf("row %d: %s", i, msg)
		}
		jobs[i] = p.planBlocks(r.ids, r.n)
	}
	if err := p.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return p, jobs
}

// trieRows returns n rows whose hash ids walk a small random trie, so that
// many pairs share prefixes of different lengths, each ending in a fresh
// block sized to the row's input length.
func trieRows(rng *rand.Rand, n, size int) []blockRow {
	rows := make([]blockRow, n)
	fresh := 1000
	for i := range rows {
		depth := rng.IntN(5)
		ids := make([]int, 0, depth+1)
		for d := range depth {
			ids = append(ids, d*10+rng.IntN(3)) // 3 choices per level
		}
		ids = append(ids, fresh)
		fresh++
		rows[i] = blockRow{ids: ids, n: depth*size + 1 + rng.IntN(size)}
	}
	return rows
}

func TestBlockFinalRule(t *testing.T) {
	tests := []struct {
		n     int
		ids   []int
		size  int
		final int
		msg   string
	}{
		{1024, []int{1, 2}, 512, 512, ""},
		{513, []int{1, 2}, 512, 1, ""},
		{1, []int{9}, 512, 1, ""},
		{1025, []int{1, 2}, 512, 0, "Input length: 1025, Hash IDs: [1, 2], Block size: 512 are not compatible. The final hash block size: 513 must be greater than 0 and less than or equal to 512."},
		{512, []int{1, 2}, 512, 0, "Input length: 512, Hash IDs: [1, 2], Block size: 512 are not compatible. The final hash block size: 0 must be greater than 0 and less than or equal to 512."},
		// The reference's own mooncake example does not fit 512-token blocks.
		{655, []int{0, 1, 2}, 512, 0, "Input length: 655, Hash IDs: [0, 1, 2], Block size: 512 are not compatible. The final hash block size: -369 must be greater than 0 and less than or equal to 512."},
		{655, []int{0, 1, 2}, 256, 143, ""},
		{40, []int{1, 2, 3}, 16, 8, ""},
		{50, []int{-1, 2, 3}, 16, 0, "Input length: 50, Hash IDs: [-1, 2, 3], Block size: 16 are not compatible. The final hash block size: 18 must be greater than 0 and less than or equal to 16."},
	}
	for _, tt := range tests {
		final, msg := blockFinal(tt.n, tt.ids, tt.size)
		if final != tt.final || msg != tt.msg {
			t.Errorf("blockFinal(%d, %v, %d) = %d, %q; want %d, %q", tt.n, tt.ids, tt.size, final, msg, tt.final, tt.msg)
		}
	}
}

// TestBlockSharedPrefixes checks §4.3's point: rows sharing leading hash
// ids share the leading token blocks and so byte-identical prompt prefixes.
func TestBlockSharedPrefixes(t *testing.T) {
	o := traceOptions(t, "", "")
	const size = 64
	rows := trieRows(rand.New(rand.NewPCG(1, 2)), 300, size)
	p, jobs := planRows(t, &o, size, rows, nil)
	dec := p.decode
	for i := range rows {
		text, tokens := p.resolve(jobs[i])
		ids := p.tokensOf(jobs[i])
		if tokens != rows[i].n || len(ids) != rows[i].n {
			t.Fatalf("row %d: %d tokens, %d ids, want input_length %d", i, tokens, len(ids), rows[i].n)
		}
		if want := dec(ids); text != want {
			t.Fatalf("row %d: text differs from decoding its ids", i)
		}
	}
	pairs := 0
	for i := range rows {
		for j := i + 1; j < len(rows); j++ {
			k := 0
			for k < len(rows[i].ids)-1 && k < len(rows[j].ids)-1 && rows[i].ids[k] == rows[j].ids[k] {
				k++
			}
			if k == 0 {
				continue
			}
			pairs++
			a, b := p.tokensOf(jobs[i]), p.tokensOf(jobs[j])
			for x := range k * size {
				if a[x] != b[x] {
					t.Fatalf("rows %d and %d share %d blocks but differ at token %d", i, j, k, x)
				}
			}
			prefix := dec(a[:k*size])
			ti, _ := p.resolve(jobs[i])
			tj, _ := p.resolve(jobs[j])
			if !strings.HasPrefix(ti, prefix) || !strings.HasPrefix(tj, prefix) {
				t.Fatalf("rows %d and %d share %d blocks but not their decoded text", i, j, k)
			}
		}
	}
	if pairs < 100 {
		t.Fatalf("only %d pairs share a prefix; the test data is too sparse", pairs)
	}
}

// TestBlockQuirk checks that a hash id keeps the size it was first made
// with: AIPerf caches a row's last block at its partial size and reuses it
// as is in a later row that wants it whole (and the other way round).
func TestBlockQuirk(t *testing.T) {
	o := traceOptions(t, "", "")
	p, jobs := planRows(t, &o, 512, []blockRow{
		{[]int{7}, 100},      // block 7: 100 tokens
		{[]int{7, 8}, 600},   // 7 reused at 100, 8: 88 -> 188
		{[]int{9, 10}, 1000}, // 9: 512, 10: 488
		{[]int{10}, 20},      // 10 reused at 488
		{[]int{7, 8}, 600},   // same key as row 2: the same job
	}, nil)
	for i, want := range []int{100, 188, 1000, 488, 188} {
		if _, n := p.resolve(jobs[i]); n != want {
			t.Errorf("row %d: %d tokens, want %d", i, n, want)
		}
	}
	if jobs[4] != jobs[1] {
		t.Errorf("identical (hash_ids, input_length) rows use jobs %d and %d, want one decoded prompt", jobs[1], jobs[4])
	}
	t0, _ := p.resolve(jobs[0])
	t1, _ := p.resolve(jobs[1])
	if !strings.HasPrefix(t1, t0) {
		t.Error("row 2 does not start with block 7's text")
	}
}

// sepTokenizer is the builtin tokenizer with <|endoftext|> as its block
// separator and special tokens kept by DecodeWithSpecial, like an HF
// tokenizer with an EOS token.
type sepTokenizer struct{ tokenizer.Tokenizer }

const sepID = 199999 // <|endoftext|> in o200k_base

func (sepTokenizer) BlockSeparator() (int, bool) { return sepID, true }
func (s sepTokenizer) DecodeWithSpecial(ids []int) string {
	var b strings.Builder
	start := 0
	for i, id := range ids {
		if id == sepID {
			b.WriteString(s.Decode(ids[start:i]))
			b.WriteString("<|endoftext|>")
			start = i + 1
		}
	}
	b.WriteString(s.Decode(ids[start:]))
	return b.String()
}

// TestBlockSeparator checks that with a separator each block opens with it
// (and counts it), decoded with special tokens kept.
func TestBlockSeparator(t *testing.T) {
	tok := sepTokenizer{traceTok(t)}
	o := traceOptions(t, "", "")
	rows := trieRows(rand.New(rand.NewPCG(5, 6)), 50, 32)
	// The builtin corpus, decoded (whole sequences) by tok.
	p, jobs := planRows(t, &o, 32, rows, func(p *blockPrompts) {
		p.decode, p.text = tok.DecodeWithSpecial, nil
		p.sep, p.hasSep = tok.BlockSeparator()
	})
	for i, r := range rows {
		text, n := p.resolve(jobs[i])
		ids := p.tokensOf(jobs[i])
		if n != r.n || len(ids) != r.n {
			t.Fatalf("row %d: %d tokens, want %d", i, n, r.n)
		}
		if got := strings.Count(text, "<|endoftext|>"); got != len(r.ids) {
			t.Fatalf("row %d: %d separators, want %d", i, got, len(r.ids))
		}
		for b := range r.ids {
			if ids[b*32] != sepID {
				t.Fatalf("row %d: block %d does not open with the separator", i, b)
			}
		}
	}
	// The piece-wise decoding of the fast path, with a separator, equals a
	// whole decode.
	c := newCorpusText(p.ids, tok.DecodeWithSpecial, sepID, true)
	for i := range rows {
		if got, want := c.join(p.jobs[jobs[i]].refs, c.size(p.jobs[jobs[i]].refs)), tok.DecodeWithSpecial(p.tokensOf(jobs[i])); got != want {
			t.Fatalf("row %d: piece-wise text differs from a whole decode", i)
		}
	}
}

// TestBlockFastPath checks that, for the builtin tokenizer, slicing the
// decoded corpus gives the same text as decoding each prompt's ids, and
// that the result does not depend on the number of workers.
func TestBlockFastPath(t *testing.T) {
	o := traceOptions(t, "", "")
	rows := trieRows(rand.New(rand.NewPCG(3, 4)), 200, 512)
	fast, jobs := planRows(t, &o, 512, rows, nil)
	if fast.text == nil {
		t.Fatal("no fast path for the builtin tokenizer")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	slow, jobs2 := planRows(t, &o, 512, rows, func(p *blockPrompts) { p.text = nil })
	for i := range rows {
		a, na := fast.resolve(jobs[i])
		b, nb := slow.resolve(jobs2[i])
		if a != b || na != nb {
			t.Fatalf("row %d: fast path gives %d tokens %.40q…, decoding gives %d %.40q…", i, na, a, nb, b)
		}
	}
}

// TestBlockReencode measures how far re-encoding a block prompt is from
// its input_length with the builtin tokenizer. The ids are exact by
// construction; the text need not re-encode to as many ids, because a
// window may start or end inside a word and the pieces merge differently
// across block joins. AIPerf has the same property (§4.3 has no fix-up).
// The test bounds the drift; -v prints it.
func TestBlockReencode(t *testing.T) {
	o := traceOptions(t, "", "")
	tok := traceTok(t)
	rows := trieRows(rand.New(rand.NewPCG(7, 8)), 100, 512)
	p, jobs := planRows(t, &o, 512, rows, nil)
	exact, drift, total := 0, 0, 0
	for i, r := range rows {
		text, _ := p.resolve(jobs[i])
		d := tok.Count(text) - r.n
		if d == 0 {
			exact++
		}
		drift += max(d, -d)
		total += r.n
		if max(d, -d) > 3*len(r.ids) {
			t.Errorf("row %d: re-encodes to %d tokens, want %d within %d", i, r.n+d, r.n, 3*len(r.ids))
		}
	}
	t.Logf("re-encoded block prompts: %d/%d exact, total drift %d of %d tokens (%.3f%%)", exact, len(rows), drift, total, 100*float64(drift)/float64(total))
	if float64(drift) > 0.005*float64(total) {
		t.Errorf("re-encoding drifts by %d of %d tokens, want < 0.5%%", drift, total)
	}
}
