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
	text   string // input of jobCount
	tokens int    // output
	size   int    // output: the prompt's byte length (jobBlocks, jobSynthetic)
}

// blockPrompts makes the prompts of one trace load. plan* calls, made in
// row order, fix every random draw (block windows, synthetic seeds) and fill
// the per-load hash block cache; run then counts and sizes all prompts in
// parallel, so the result depends on the seed only. Prompts are lazy
// (dataset.LazyText): a block prompt is a list of (start, n) windows of the
// rotated corpus, joined when sent, so a trace's memory grows with its
// blocks, not with its tokens.
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

// result returns job j's prompt after run: a literal text (jobCount) or a
// lazy one, and its token count.
func (p *blockPrompts) result(j int) (text string, lazy dataset.LazyText, tokens int) {
	job := &p.jobs[j]
	switch job.kind {
	case jobBlocks:
		return "", &blockText{p: p, refs: job.refs, tokens: job.n, size: job.size}, job.tokens
	case jobSynthetic:
		return "", &synthText{corpus: p.corpus, seed: job.seed, n: job.n, size: job.size}, job.tokens
	}
	return job.text, nil, job.tokens
}

// release drops what only planning needs (the cache, the dedup keys, the
// jobs); the lazy prompts keep the corpus and their own block lists.
func (p *blockPrompts) release() {
	p.cache, p.keys, p.jobs = nil, nil, nil
}

// run completes every planned job on up to GOMAXPROCS goroutines and waits
// for them: it counts literal texts and sizes synthetic prompts (made once
// for their count, then dropped: they are made again when sent). It returns
// ctx's error when ctx is cancelled first.
func (p *blockPrompts) run(ctx context.Context) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(p.jobs)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				j := int(next.Add(1)) - 1
				if j >= len(p.jobs) {
					return
				}
				p.do(&p.jobs[j])
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// do completes one job.
func (p *blockPrompts) do(job *promptJob) {
	switch job.kind {
	case jobCount:
		job.tokens = p.counter.Count(job.text)
	case jobSynthetic:
		text, tokens := p.corpus.Prompt(rand.New(rand.NewPCG(job.seed, 0)), job.n)
		job.tokens, job.size = tokens, len(text)
	case jobBlocks:
		job.tokens = job.n
		if p.text != nil {
			job.size = p.text.size(job.refs)
		} else {
			job.size = job.n * estimatedBytesPerToken
		}
	}
}

// estimatedBytesPerToken sizes a block prompt that only a decode could
// measure (the dataset uses sizes to decide whether to prebuild bodies).
const estimatedBytesPerToken = 4

// blockText is the prompt of a hash_ids row, made from its blocks when a
// request is built (dataset.LazyText).
type blockText struct {
	p      *blockPrompts
	refs   []blockRef
	tokens int // ids, separators included
	size   int // bytes: exact with the fast path, else estimated
}

// Text joins the blocks: substrings of the decoded corpus on the fast path,
// else one decode of the blocks' ids.
func (b *blockText) Text() string {
	if b.p.text != nil {
		return b.p.text.join(b.refs, b.size)
	}
	ids := make([]int, 0, b.tokens)
	for _, r := range b.refs {
		if b.p.hasSep {
			ids = append(ids, b.p.sep)
		}
		ids = appendWindow(ids, b.p.ids, int(r.start), int(r.n))
	}
	return b.p.decode(ids)
}

// Len returns the prompt's byte length (see blockText.size).
func (b *blockText) Len() int { return b.size }

// synthText is the prompt of a row with input_length and no hash_ids,
// made again from its seed when a request is built (dataset.LazyText).
type synthText struct {
	corpus *dataset.Corpus
	seed   uint64
	n      int
	size   int
}

// Text makes the prompt from the row's seed, as run first made it.
func (s *synthText) Text() string {
	text, _ := s.corpus.Prompt(rand.New(rand.NewPCG(s.seed, 0)), s.n)
	return text
}

// Len returns the prompt's byte length.
func (s *synthText) Len() int { return s.size }

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
