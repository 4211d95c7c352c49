package dataset

import (
	"flag"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aiperf-go/aiperf/tokenizer"
)

var promptLengths = flag.Int("prompt-lengths", 2000, "random lengths TestPromptExactBuiltin checks (fewer under -race or -short)")

// countingTokenizer wraps a tokenizer and counts Encode calls, to measure how
// many fix-up tries prompts take.
type countingTokenizer struct {
	tokenizer.Tokenizer
	encodes atomic.Int64
}

func (c *countingTokenizer) Encode(text string) []int {
	c.encodes.Add(1)
	return c.Tokenizer.Encode(text)
}

// TestPromptExactBuiltin draws thousands of random lengths in 1..4096 at
// random positions (-prompt-lengths sets how many), plus every length in
// 1..64 at several positions, and requires each prompt to re-encode to
// exactly that many builtin tokens.
func TestPromptExactBuiltin(t *testing.T) {
	base := builtinCorpus(t)
	ct := &countingTokenizer{Tokenizer: base.tok}
	c := &Corpus{tok: ct, ids: base.ids}
	rng := rand.New(rand.NewPCG(42, 7))

	// Under -race the tokenizer is ~20x slower: fewer, shorter prompts.
	random, maxLen, perShort := *promptLengths, 4096, 10
	if raceEnabled || testing.Short() {
		random, maxLen, perShort = 40, 512, 1
	}
	type job struct{ start, n int }
	var jobs []job
	for range random {
		jobs = append(jobs, job{rng.IntN(c.Len()), 1 + rng.IntN(maxLen)})
	}
	for n := 1; n <= 64; n++ {
		for range perShort {
			jobs = append(jobs, job{rng.IntN(c.Len()), n})
		}
	}
	// Each worker checks every workers-th job.
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(jobs); i += workers {
				j := jobs[i]
				text, got := c.promptAt(j.start, j.n)
				real := base.tok.Count(text)
				if got != j.n || real != j.n {
					mu.Lock()
					t.Errorf("prompt of %d at %d: returned %d, text has %d tokens: %q", j.n, j.start, got, real, text)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d prompts, %d encodes (1 per prompt means no fix-up was needed)", len(jobs), ct.encodes.Load())
}

func TestPromptUsesOneDraw(t *testing.T) {
	c := builtinCorpus(t)
	a := rand.New(rand.NewPCG(3, 4))
	b := rand.New(rand.NewPCG(3, 4))
	text, n := c.Prompt(a, 300)
	want, wantN := c.promptAt(b.IntN(c.Len()), 300)
	if text != want || n != wantN {
		t.Errorf("Prompt differs from promptAt at the drawn start")
	}
	if a.Uint64() != b.Uint64() {
		t.Error("Prompt used more than one draw from rng")
	}
}

func TestPromptEdgeCases(t *testing.T) {
	c := builtinCorpus(t)
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{0, -5} {
		if text, got := c.Prompt(rng, n); text != "" || got != 0 {
			t.Errorf("Prompt(%d) = %q, %d", n, text, got)
		}
	}
	// Wrapping from the last token to the first.
	if text, got := c.promptAt(c.Len()-3, 10); got != 10 || c.tok.Count(text) != 10 {
		t.Errorf("prompt across the end has %d tokens: %q", c.tok.Count(text), text)
	}
	// Longer than the corpus: the window cycles.
	if testing.Short() || raceEnabled {
		return
	}
	if _, got := c.promptAt(5, c.Len()+100); got != c.Len()+100 {
		t.Errorf("prompt longer than the corpus has %d tokens, want %d", got, c.Len()+100)
	}
}

// TestPromptWordTokenizer uses a tokenizer whose counts are exact, so the
// prompt is exactly the corpus window.
func TestPromptWordTokenizer(t *testing.T) {
	w := newWordTokenizer("words-prompt-test")
	c, err := NewCorpus(w)
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields(shakespeareText)
	text, n := c.promptAt(c.Len()-2, 5)
	want := strings.Join(append(slices.Clone(words[len(words)-2:]), words[:3]...), " ")
	if n != 5 || text != want {
		t.Errorf("promptAt(end-2, 5) = %q, %d; want %q, 5", text, n, want)
	}
}

// TestPromptNoConvergence: a tokenizer that always counts one token more than
// it was given never converges; Prompt gives up after its tries and returns
// the true count of the text it returns.
func TestPromptNoConvergence(t *testing.T) {
	var encodes atomic.Int64
	plusOne := &funcTokenizer{
		name: "plus-one-test",
		encode: func(s string) []int {
			encodes.Add(1)
			return make([]int, len(strings.Fields(s))+1)
		},
		decode: func(ids []int) string { return strings.TrimSpace(strings.Repeat("w ", len(ids))) },
	}
	c := &Corpus{tok: plusOne, ids: make([]int, 100)}
	text, n := c.promptAt(0, 7)
	if n != 8 || n != plusOne.Count(text) {
		t.Errorf("returned count %d for a text the tokenizer counts as %d; want 8", n, plusOne.Count(text))
	}
	// 10 tries plus the final count.
	if got := encodes.Load(); got != maxFixups+2 {
		t.Errorf("%d encodes, want %d", got, maxFixups+2)
	}
}
