package dataset

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/tokenizer"
)

//go:generate go test -run TestEmbeddedCorpusIDs -update-corpus .

// shakespeareText is AIPerf's prompt corpus (assets/shakespeare.txt).
//
//go:embed corpus/shakespeare.txt
var shakespeareText string

// shakespeareO200k is shakespeareText prepared by corpusChunks and encoded
// with the builtin tokenizer, as little-endian uint32 ids. Encoding 1.1 MB at
// start-up costs ~160 ms; reading this file costs under 1 ms.
// TestEmbeddedCorpusIDs checks it is fresh; -update-corpus rewrites it.
//
//go:embed corpus/o200k.bin
var shakespeareO200k []byte

// corpusChunkChars is AIPerf's fixed chunk size: chunk boundaries (and so the
// token ids, since tokens never span a boundary) do not depend on the CPU
// count.
const corpusChunkChars = 10_000

// Corpus is the tokenized prompt corpus for one tokenizer: one flat array of
// token ids that prompts are cut from. A Corpus is immutable and safe for
// concurrent use; the rand.Rand passed to its methods is not.
type Corpus struct {
	tok tokenizer.Tokenizer
	ids []int
}

type corpusEntry struct {
	once   sync.Once
	corpus *Corpus
	err    error
}

// corpora caches one Corpus per tokenizer Name for the life of the process,
// so repeated runs (multi-run, tests) tokenize the corpus once.
var corpora sync.Map // string -> *corpusEntry

// NewCorpus returns the Shakespeare corpus tokenized with tok, built once per
// tok.Name() and shared afterwards (Name must identify the tokenizer). For the
// builtin tokenizer it reads the embedded pre-tokenized ids; for any other it
// tokenizes the text in parallel fixed-size chunks, which blocks until done
// (a fraction of a second per MB of text on one core). It returns an error
// when tok is nil or yields no tokens; that error is remembered for the Name
// like a corpus is.
func NewCorpus(tok tokenizer.Tokenizer) (*Corpus, error) {
	if tok == nil {
		return nil, errors.New("corpus: nil tokenizer")
	}
	v, _ := corpora.LoadOrStore(tok.Name(), &corpusEntry{})
	e := v.(*corpusEntry)
	e.once.Do(func() { e.corpus, e.err = loadCorpus(tok) })
	return e.corpus, e.err
}

func loadCorpus(tok tokenizer.Tokenizer) (*Corpus, error) {
	var ids []int
	if isBuiltin(tok) {
		ids = decodeIDs(shakespeareO200k)
	} else {
		ids = tokenizeChunks(tok, corpusChunks(shakespeareText))
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("corpus: tokenizer %q yields no tokens", tok.Name())
	}
	return &Corpus{tok: tok, ids: ids}, nil
}

// isBuiltin reports whether tok is the builtin instance itself, not merely a
// tokenizer that calls itself "builtin": only then are the embedded ids right.
func isBuiltin(tok tokenizer.Tokenizer) bool {
	b, err := tokenizer.Builtin()
	return err == nil && tok == b
}

// corpusChunks prepares the corpus text as AIPerf does: lines stripped,
// blank lines dropped, lines collected until a chunk holds at least
// corpusChunkChars characters, and each chunk's lines joined with one space.
func corpusChunks(text string) []string {
	var chunks []string
	var buf []string
	chars := 0
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		buf = append(buf, line)
		chars += utf8.RuneCountInString(line)
		if chars >= corpusChunkChars {
			chunks = append(chunks, strings.Join(buf, " "))
			buf, chars = buf[:0], 0
		}
	}
	if len(buf) > 0 {
		chunks = append(chunks, strings.Join(buf, " "))
	}
	return chunks
}

// tokenizeChunks encodes chunks on up to GOMAXPROCS goroutines, which it
// waits for, and concatenates the ids in chunk order.
func tokenizeChunks(tok tokenizer.Tokenizer, chunks []string) []int {
	parts := make([][]int, len(chunks))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(chunks)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(chunks) {
					return
				}
				parts[i] = tok.Encode(chunks[i])
			}
		})
	}
	wg.Wait()
	total := 0
	for _, p := range parts {
		total += len(p)
	}
	ids := make([]int, 0, total)
	for _, p := range parts {
		ids = append(ids, p...)
	}
	return ids
}

// encodeIDs and decodeIDs convert between ids and the embedded file format.
func encodeIDs(ids []int) []byte {
	b := make([]byte, 4*len(ids))
	for i, id := range ids {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(id))
	}
	return b
}

func decodeIDs(b []byte) []int {
	ids := make([]int, len(b)/4)
	for i := range ids {
		ids[i] = int(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return ids
}

// Len returns the number of tokens in the corpus.
func (c *Corpus) Len() int { return len(c.ids) }

// Tokenizer returns the tokenizer the corpus was built with.
func (c *Corpus) Tokenizer() tokenizer.Tokenizer { return c.tok }

// Sample returns n consecutive corpus tokens starting at a uniformly random
// position drawn from rng (one draw), wrapping to the beginning past the end,
// as AIPerf's sample_tokens. Unlike AIPerf, which returns fewer tokens when n
// exceeds the corpus length, the window keeps cycling so the result always
// has n tokens. n <= 0 gives an empty slice. The result is a fresh slice the
// caller may modify.
func (c *Corpus) Sample(rng *rand.Rand, n int) []int {
	if n <= 0 {
		return []int{}
	}
	return c.window(rng.IntN(len(c.ids)), n)
}

// window returns n tokens from start, cycling through the corpus.
func (c *Corpus) window(start, n int) []int {
	out := make([]int, 0, n)
	for len(out) < n {
		end := min(start+n-len(out), len(c.ids))
		out = append(out, c.ids[start:end]...)
		start = 0
	}
	return out
}
