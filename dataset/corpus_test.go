package dataset

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/tokenizer"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite corpus/o200k.bin from corpus/shakespeare.txt")

func builtinTok(t testing.TB) tokenizer.Tokenizer {
	t.Helper()
	tok, err := tokenizer.Builtin()
	if err != nil {
		t.Fatalf("Builtin: %v", err)
	}
	return tok
}

func builtinCorpus(t testing.TB) *Corpus {
	t.Helper()
	c, err := NewCorpus(builtinTok(t))
	if err != nil {
		t.Fatalf("NewCorpus: %v", err)
	}
	return c
}

// TestEmbeddedCorpusIDs regenerates the pre-tokenized corpus in memory and
// checks the embedded file is fresh (same text preparation, same tokenizer).
// go generate (or -update-corpus) rewrites it.
//
// Under -race, where the tokenizer is ~20x slower, only the first chunks are
// checked: tokens never span chunks, so their ids are a prefix of the file.
func TestEmbeddedCorpusIDs(t *testing.T) {
	chunks := corpusChunks(shakespeareText)
	if raceEnabled && !*updateCorpus {
		chunks = chunks[:4]
	}
	fresh := encodeIDs(tokenizeChunks(builtinTok(t), chunks))
	if raceEnabled && !*updateCorpus {
		if !bytes.HasPrefix(shakespeareO200k, fresh) {
			t.Fatal("corpus/o200k.bin is stale: run go generate ./dataset")
		}
		return
	}
	if *updateCorpus {
		if err := os.WriteFile("corpus/o200k.bin", fresh, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(fresh, shakespeareO200k) {
		t.Fatalf("corpus/o200k.bin is stale (%d bytes, fresh %d): run go generate ./dataset",
			len(shakespeareO200k), len(fresh))
	}
}

// TestCorpusMatchesTiktoken checks the builtin corpus against values computed
// by OpenAI's tiktoken (npm "tiktoken" 1.0.22, o200k_base encode_ordinary) on
// the same preparation: 108 chunks of stripped non-blank lines joined by " ".
func TestCorpusMatchesTiktoken(t *testing.T) {
	if got := len(corpusChunks(shakespeareText)); got != 108 {
		t.Errorf("chunks = %d, want 108", got)
	}
	c := builtinCorpus(t)
	if c.Len() != 288284 {
		t.Fatalf("corpus has %d tokens, want 288284", c.Len())
	}
	var sum uint64
	var poly uint64
	const m = 1<<61 - 1
	for _, id := range c.ids {
		sum += uint64(id)
		poly = mulmod(poly, 1000003, m) + uint64(id)
		poly %= m
	}
	if sum != 4310107624 || poly != 1365242432243499356 {
		t.Errorf("id sum %d, poly hash %d; want 4310107624, 1365242432243499356", sum, poly)
	}
	if want := []int{7127, 84479, 25, 16935, 581, 18988, 1062, 6544}; !slices.Equal(c.ids[:8], want) {
		t.Errorf("first ids %v, want %v", c.ids[:8], want)
	}
	if want := []int{885, 83, 1656, 2892, 65865, 1957, 78034, 13}; !slices.Equal(c.ids[len(c.ids)-8:], want) {
		t.Errorf("last ids %v, want %v", c.ids[len(c.ids)-8:], want)
	}
}

// mulmod returns a*b mod m for m < 2^61 without overflow.
func mulmod(a, b, m uint64) uint64 {
	var r uint64
	for a %= m; b > 0; b >>= 1 {
		if b&1 == 1 {
			r = (r + a) % m
		}
		a = (a << 1) % m
	}
	return r
}

func TestCorpusChunks(t *testing.T) {
	long := strings.Repeat("x", 6000)
	tests := []struct {
		name, text string
		want       []string
	}{
		{"empty", "", nil},
		{"blank lines only", "\n  \n\t\n", nil},
		{"strip and join", "  To be,  \n\n\tor not\r\nto be\n", []string{"To be, or not to be"}},
		{"chunk at 10000 chars", long + "\n" + long + "\n\n" + long + "\n",
			[]string{long + " " + long, long}},
		{"exactly 10000 closes a chunk", strings.Repeat("y", 10000) + "\nz", []string{strings.Repeat("y", 10000), "z"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := corpusChunks(tc.text); !slices.Equal(got, tc.want) {
				t.Errorf("corpusChunks = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNewCorpusCachedPerName(t *testing.T) {
	a := builtinCorpus(t)
	if b := builtinCorpus(t); a != b {
		t.Error("second NewCorpus for builtin built a new corpus")
	}
	w := newWordTokenizer("words-cache-test")
	c1, err := NewCorpus(w)
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := NewCorpus(newWordTokenizer("words-cache-test"))
	if c1 != c2 {
		t.Error("same Name gave two corpora")
	}
	// Stripping, dropping blank lines and joining with spaces keeps every
	// whitespace-separated word of the file, in order.
	want := strings.Fields(shakespeareText)
	if c1.Len() != len(want) {
		t.Fatalf("word corpus has %d tokens, want %d", c1.Len(), len(want))
	}
	if got := c1.tok.Decode(c1.ids[:5]); got != strings.Join(want[:5], " ") {
		t.Errorf("first words %q", got)
	}
}

func TestNewCorpusErrors(t *testing.T) {
	if _, err := NewCorpus(nil); err == nil {
		t.Error("nil tokenizer: no error")
	}
	empty := &funcTokenizer{name: "empty-test", encode: func(string) []int { return nil }}
	if _, err := NewCorpus(empty); err == nil {
		t.Error("tokenizer yielding nothing: no error")
	}
}

// TestNewCorpusTokenizesPerChunk: a tokenizer other than the builtin one is
// run over each of the 108 chunks once, in parallel.
func TestNewCorpusTokenizesPerChunk(t *testing.T) {
	var calls int
	var mu sync.Mutex
	// A name of its own per run: corpora are cached by name (go test -count).
	name := fmt.Sprintf("chunk-count-test-%d", time.Now().UnixNano())
	look := &funcTokenizer{name: name, encode: func(s string) []int {
		mu.Lock()
		calls++
		mu.Unlock()
		return []int{len(s)}
	}}
	c, err := NewCorpus(look)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 108 || c.Len() != 108 {
		t.Errorf("encode calls %d, tokens %d; want 108 each", calls, c.Len())
	}
}

func TestCorpusWindowWraps(t *testing.T) {
	c := &Corpus{ids: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}
	tests := []struct {
		start, n int
		want     []int
	}{
		{0, 3, []int{0, 1, 2}},
		{7, 3, []int{7, 8, 9}},
		{8, 5, []int{8, 9, 0, 1, 2}},
		{9, 1, []int{9}},
		{3, 25, []int{3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7}},
	}
	for _, tc := range tests {
		if got := c.window(tc.start, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("window(%d, %d) = %v, want %v", tc.start, tc.n, got, tc.want)
		}
	}
}

func TestCorpusSample(t *testing.T) {
	c := &Corpus{ids: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}
	rng := rand.New(rand.NewPCG(1, 2))
	starts := map[int]bool{}
	for range 200 {
		got := c.Sample(rng, 4)
		if len(got) != 4 {
			t.Fatalf("Sample(4) has %d tokens", len(got))
		}
		for i := 1; i < len(got); i++ {
			if got[i] != (got[i-1]+1)%10 {
				t.Fatalf("Sample not contiguous: %v", got)
			}
		}
		starts[got[0]] = true
	}
	if len(starts) != 10 {
		t.Errorf("200 samples started at only %d of 10 positions", len(starts))
	}
	if got := c.Sample(rng, 0); len(got) != 0 {
		t.Errorf("Sample(0) = %v", got)
	}
}

// TestBuiltinCorpusLoadTime logs the start-up cost; run it alone
// (-run TestBuiltinCorpusLoadTime -v) to see it cold.
func TestBuiltinCorpusLoadTime(t *testing.T) {
	start := time.Now()
	tok := builtinTok(t)
	mid := time.Now()
	if _, err := NewCorpus(tok); err != nil {
		t.Fatal(err)
	}
	t.Logf("Builtin() %v, NewCorpus(builtin) %v", mid.Sub(start), time.Since(mid))
}

func BenchmarkCorpusLoadEmbedded(b *testing.B) {
	for b.Loop() {
		decodeIDs(shakespeareO200k)
	}
}

func BenchmarkCorpusTokenizeBuiltin(b *testing.B) {
	tok := builtinTok(b)
	chunks := corpusChunks(shakespeareText)
	b.SetBytes(int64(len(shakespeareText)))
	for b.Loop() {
		tokenizeChunks(tok, chunks)
	}
}
