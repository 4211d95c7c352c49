package custom

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/tokenizer"
)

// Block sizes of the hash_ids formats (§4.2); Options.BlockSize overrides.
const (
	mooncakeBlockSize = 512
	bailianBlockSize  = 16
)

// blockFinal applies the final-block rule of §4.3: the last of n hash blocks
// holds inputLength-(n-1)*size tokens, which must lie in (0, size]. It
// returns that size, or AIPerf's ConfigurationError message.
func blockFinal(inputLength int, hashIDs []int, size int) (int, string) {
	final := inputLength - (len(hashIDs)-1)*size
	if final <= 0 || final > size {
		return 0, fmt.Sprintf("Input length: %d, Hash IDs: %s, Block size: %d are not compatible. "+
			"The final hash block size: %d must be greater than 0 and less than or equal to %d.",
			inputLength, pyIntList(hashIDs), size, final, size)
	}
	return final, ""
}

// pyIntList formats ids as Python prints a list of ints: [1, 2, 3].
func pyIntList(ids []int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, id := range ids {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, id)
	}
	b.WriteByte(']')
	return b.String()
}

// blockRef is a cached hash block: the separator token (when the tokenizer
// has one) followed by n corpus tokens from start, cycling.
type blockRef struct{ start, n int32 }

// Kinds of promptJob.
const (
	jobBlocks    = iota // decode refs (a hash_ids prompt)
	jobSynthetic        // a plain prompt of n tokens from seed
	jobCount            // count the tokens of a literal text
)

// promptJob is one prompt to produce (or text to count) in run.
type promptJob struct {
	kind   int
	refs   []blockRef
	n      int
	seed   uint64
	text   string // output, or input of jobCount
	tokens int    // output
}

// blockPrompts makes the prompts of one trace load. plan* calls, made in
// row order, fix every random draw (block windows, synthetic seeds) and fill
// the per-load hash block cache; run then decodes all prompts in parallel,
// so the result depends on the seed only.
type blockPrompts struct {
	corpus  *dataset.Corpus
	counter tokenizer.Tokenizer
	decode  func([]int) string
	sep     int
	hasSep  bool
	size    int

	// ids is the corpus rotated by a random offset: cutting a window at a
	// uniform start of it is cutting one at a uniform start of the corpus,
	// and holding the ids lets a block be a (start, n) pair, not a copy.
	ids      []int
	rotation *rand.Rand // the rotation of ids
	starts   *rand.Rand // window starts, in plan order
	seeds    *rand.Rand // synthetic prompt seeds, in plan order

	cache map[int]blockRef // hash id -> block, shared by all rows
	keys  map[string]int   // (hash_ids, input_length) -> job: decoded prompts
	jobs  []promptJob
	text  *corpusText // non-nil: decode by slicing the decoded corpus
}

// Random streams of trace loads.
const (
	streamTraceRotation = "custom.trace.rotation"
	streamTraceBlocks   = "custom.trace.blocks"
	streamTraceSynth    = "custom.trace.synthetic"
	streamTraceModel    = "custom.trace.model"
	streamTraceOSL      = "custom.trace.osl"
)

// newBlockPrompts prepares prompt synthesis with hash block size size. The
// corpus tokenizer decodes (with special tokens kept, and a separator token
// opening each block, when it implements tokenizer.Specials); counter
// counts literal texts.
func newBlockPrompts(o *Options, size int) *blockPrompts {
	tok := o.Corpus.Tokenizer()
	p := &blockPrompts{
		corpus:   o.Corpus,
		counter:  o.Tokenizer,
		decode:   tok.Decode,
		size:     size,
		rotation: seededPCG(o.Seed, streamTraceRotation),
		starts:   seededPCG(o.Seed, streamTraceBlocks),
		seeds:    seededPCG(o.Seed, streamTraceSynth),
		cache:    make(map[int]blockRef),
		keys:     make(map[string]int),
	}
	if s, ok := tok.(tokenizer.Specials); ok {
		p.decode = s.DecodeWithSpecial
		p.sep, p.hasSep = s.BlockSeparator()
	}
	return p
}

// loadCorpus takes the rotated corpus ids (and, for the builtin tokenizer,
// its decoded text) the first time a block prompt is planned.
func (p *blockPrompts) loadCorpus() {
	if p.ids != nil {
		return
	}
	p.ids = p.corpus.Sample(p.rotation, p.corpus.Len())
	// Only the builtin tokenizer is known to decode by concatenating token
	// bytes; TestBlockFastPath checks the result equals a full decode.
	if b, err := tokenizer.Builtin(); err == nil && p.corpus.Tokenizer() == b {
		p.text = newCorpusText(p.ids, p.decode, p.sep, p.hasSep)
	}
}

// planBlocks plans the prompt of a row with hash_ids (already checked with
// blockFinal) and returns its job. Rows with the same hash_ids and
// input_length share one job. A hash id seen before reuses its block as
// first generated, even when this row wants another size for it (AIPerf's
// quirk: a last block is cached at its partial size).
func (p *blockPrompts) planBlocks(hashIDs []int, inputLength int) int {
	key := make([]byte, 0, 8*(len(hashIDs)+1))
	key = binary.AppendVarint(key, int64(inputLength))
	for _, h := range hashIDs {
		key = binary.AppendVarint(key, int64(h))
	}
	if j, ok := p.keys[string(key)]; ok {
		return j
	}
	p.loadCorpus()
	final, _ := blockFinal(inputLength, hashIDs, p.size)
	job := promptJob{kind: jobBlocks, refs: make([]blockRef, len(hashIDs))}
	for i, h := range hashIDs {
		ref, ok := p.cache[h]
		if !ok {
			size := p.size
			if i == len(hashIDs)-1 {
				size = final
			}
			if p.hasSep {
				size--
			}
			if size > 0 {
				ref = blockRef{start: int32(p.starts.IntN(len(p.ids))), n: int32(size)}
			}
			p.cache[h] = ref
		}
		job.refs[i] = ref
		job.n += int(ref.n)
		if p.hasSep {
			job.n++
		}
	}
	p.jobs = append(p.jobs, job)
	p.keys[string(key)] = len(p.jobs) - 1
	return len(p.jobs) - 1
}

// planSynthetic plans a plain prompt of n tokens (a row without hash_ids).
func (p *blockPrompts) planSynthetic(n int) int {
	p.jobs = append(p.jobs, promptJob{kind: jobSynthetic, n: n, seed: p.seeds.Uint64()})
	return len(p.jobs) - 1
}

// planCount plans counting the tokens of a literal text.
func (p *blockPrompts) planCount(text string) int {
	p.jobs = append(p.jobs, promptJob{kind: jobCount, text: text})
	return len(p.jobs) - 1
}

// result returns job j's prompt text and token count after run.
func (p *blockPrompts) result(j int) (string, int) {
	return p.jobs[j].text, p.jobs[j].tokens
}

// run produces every planned job on up to GOMAXPROCS goroutines and waits
// for them. It returns ctx's error when ctx is cancelled first.
func (p *blockPrompts) run(ctx context.Context) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(p.jobs)) {
		wg.Go(func() {
			w := &blockWorker{}
			for ctx.Err() == nil {
				j := int(next.Add(1)) - 1
				if j >= len(p.jobs) {
					return
				}
				p.do(&p.jobs[j], w)
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// blockWorker is one run goroutine's reusable state.
type blockWorker struct {
	scratch []int           // token ids of the prompt being decoded
	arena   strings.Builder // fast-path prompts, packed
}

// do produces one job with worker state w.
func (p *blockPrompts) do(job *promptJob, w *blockWorker) {
	switch job.kind {
	case jobCount:
		job.tokens = p.counter.Count(job.text)
	case jobSynthetic:
		job.text, job.tokens = p.corpus.Prompt(rand.New(rand.NewPCG(job.seed, 0)), job.n)
	case jobBlocks:
		job.tokens = job.n
		if p.text != nil {
			job.text = w.pack(p.text, job.refs)
			break
		}
		w.scratch = w.scratch[:0]
		for _, r := range job.refs {
			if p.hasSep {
				w.scratch = append(w.scratch, p.sep)
			}
			w.scratch = appendWindow(w.scratch, p.ids, int(r.start), int(r.n))
		}
		job.text = p.decode(w.scratch)
	}
}

// appendWindow appends n ids of the cyclic sequence ids from start.
func appendWindow(dst, ids []int, start, n int) []int {
	for n > 0 {
		end := min(start+n, len(ids))
		dst = append(dst, ids[start:end]...)
		n -= end - start
		start = 0
	}
	return dst
}
