package dataset

import (
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// A spanIndex makes Prompt's BPE fix-up cheap for the builtin tokenizer.
//
// Prompt re-encodes every text it cuts to check its token count; for 4k-token
// prompts that is nearly all of the work. But a prompt's text is a substring
// of the decoded corpus (byte-level BPE decodes by concatenation), and the
// builtin tokenizer (o200k_base) splits text into pieces with a regular
// expression before merging within pieces. At a position where an ASCII
// letter is followed by a space, every scan of the regular expression ends
// a piece: the letter can only be matched by the letter alternatives, which
// never take a space, and the pattern has no look-behind, so what follows is
// scanned as if the text began there. The token count of a text is therefore
// the sum of the counts between such split points, whatever text surrounds
// them. The index records split points about every 64 bytes of the corpus
// text and the token counts between them, so counting a prompt encodes only
// its two ends (and the joins, when a text is made of several spans).
//
// The fast path computes exactly what the id-based fix-up (Corpus.promptAt,
// Corpus.promptWithPrefix) computes, step for step; where it cannot follow
// (a window longer than the corpus, an odd decode) it reports !ok and the
// caller takes the id-based path. Tests compare the two on thousands of
// windows.
type spanIndex struct {
	c    *Corpus
	text string  // the decoded corpus twice over, so windows never wrap
	off  []int32 // off[i]: byte offset in text of corpus token i, i in [0, 2·Len]
	safe []int32 // split points in text, ascending
	cum  []int32 // cum[k]: tokens in text[safe[0]:safe[k]]
	// space is a span of text holding a single ' ', to count texts joined
	// with spaces.
	space span
}

// span is the byte range [x, y) of spanIndex.text.
type span struct{ x, y int32 }

// safeStride is the least distance in bytes between split points.
const safeStride = 64

// indexMinTokens is the planned prompt volume (in tokens) from which
// Synthetic uses the index: building it costs about as much as the id-based
// fix-up of this many tokens.
var indexMinTokens = 1 << 18

type indexEntry struct {
	once sync.Once
	ix   *spanIndex
}

// spanIndexes caches one index per corpus; corpora live for the process.
var spanIndexes sync.Map // *Corpus -> *indexEntry

// spanIndexFor returns the index of c, built once, or nil when c's tokenizer
// is not the builtin one or its decoding is not a plain concatenation.
func spanIndexFor(c *Corpus) *spanIndex {
	if !isBuiltin(c.tok) {
		return nil
	}
	v, _ := spanIndexes.LoadOrStore(c, &indexEntry{})
	e := v.(*indexEntry)
	e.once.Do(func() { e.ix = buildSpanIndex(c) })
	return e.ix
}

func buildSpanIndex(c *Corpus) *spanIndex {
	n := len(c.ids)
	pieces := make([]string, n)
	parallelFor(n, 4096, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			pieces[i] = c.tok.Decode(c.ids[i : i+1])
		}
	})
	off := make([]int32, 2*n+1)
	var b strings.Builder
	for i, p := range pieces {
		off[i+1] = off[i] + int32(len(p))
		b.WriteString(p)
	}
	half := b.String()
	if half != c.tok.Decode(c.ids) || strings.Contains(half, "<|") || len(half) > 1<<29 {
		return nil // not concatenative, or special-token text: stay id-based
	}
	for i := range n {
		off[n+1+i] = int32(len(half)) + off[i+1]
	}
	ix := &spanIndex{c: c, text: half + half, off: off}
	if sp := strings.IndexByte(half, ' '); sp >= 0 {
		ix.space = span{int32(sp), int32(sp) + 1}
	} else {
		return nil
	}

	var first []int32
	last := 0
	for p := 1; p < len(half); p++ {
		if p-last >= safeStride && half[p] == ' ' && isASCIILetter(half[p-1]) {
			first = append(first, int32(p))
			last = p
		}
	}
	m := len(first)
	if m < 2 {
		return nil
	}
	ix.safe = make([]int32, 2*m)
	copy(ix.safe, first)
	for k, s := range first {
		ix.safe[m+k] = s + int32(len(half))
	}
	// counts[k] is the number of tokens between safe[k] and safe[k+1]; the
	// second copy repeats the first, and k = m-1 is the join of the two.
	// A piece inside one corpus chunk is counted from the corpus ids, which
	// are that chunk's encoding: split points are token boundaries of any
	// text around them. Other pieces, and every 64th as a check, are
	// encoded.
	counts := make([]int32, 2*m-1)
	bounds := chunkBounds(half)
	var bad atomic.Bool
	parallelFor(m, 256, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			x, y := ix.safe[k], ix.safe[k+1]
			known, ok := ix.idsCount(bounds, x, y)
			if ok && k%64 != 0 {
				counts[k] = int32(known)
				continue
			}
			piece := ix.text[x:y]
			ids := c.tok.Encode(piece)
			if c.tok.Decode(ids) != piece || (ok && known != len(ids)) {
				bad.Store(true)
			}
			counts[k] = int32(len(ids))
		}
	})
	if bad.Load() {
		return nil
	}
	copy(counts[m:], counts[:m-1])
	ix.cum = make([]int32, 2*m)
	for k, v := range counts {
		ix.cum[k+1] = ix.cum[k] + v
	}
	return ix
}

// chunkBounds returns the byte offsets in half of the corpus chunks the ids
// were encoded from (corpusChunks), and len(half) last; nil when the chunks
// do not make up half.
func chunkBounds(half string) []int32 {
	chunks := corpusChunks(shakespeareText)
	bounds := make([]int32, 0, len(chunks)+1)
	at := 0
	for _, ch := range chunks {
		if !strings.HasPrefix(half[at:], ch) {
			return nil
		}
		bounds = append(bounds, int32(at))
		at += len(ch)
	}
	if at != len(half) {
		return nil
	}
	return append(bounds, int32(at))
}

// idsCount returns the number of corpus ids between byte offsets x and y of
// the first copy when both lie on token boundaries within one chunk.
func (ix *spanIndex) idsCount(bounds []int32, x, y int32) (int, bool) {
	if len(bounds) == 0 || y > bounds[len(bounds)-1] {
		return 0, false
	}
	j, found := slices.BinarySearch(bounds, x)
	if !found {
		j--
	}
	if y > bounds[j+1] {
		return 0, false
	}
	n := len(ix.c.ids)
	i1, ok1 := slices.BinarySearch(ix.off[:n+1], x)
	i2, ok2 := slices.BinarySearch(ix.off[:n+1], y)
	return i2 - i1, ok1 && ok2
}

func isASCIILetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

// parallelFor calls fn on [lo, hi) ranges of at most grain items covering
// [0, n), on up to GOMAXPROCS goroutines, and waits for them.
func parallelFor(n, grain int, fn func(lo, hi int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), (n+grain-1)/grain) {
		wg.Go(func() {
			for {
				lo := int(next.Add(int64(grain))) - grain
				if lo >= n {
					return
				}
				fn(lo, min(lo+grain, n))
			}
		})
	}
	wg.Wait()
}

// str returns the text of spans.
func (ix *spanIndex) str(spans []span) string {
	if len(spans) == 1 {
		return ix.text[spans[0].x:spans[0].y]
	}
	size := 0
	for _, s := range spans {
		size += int(s.y - s.x)
	}
	var b strings.Builder
	b.Grow(size)
	for _, s := range spans {
		b.WriteString(ix.text[s.x:s.y])
	}
	return b.String()
}

// inner returns the first and last split points strictly inside s. A split
// point at either end of a span is no use: the byte beside it may come from
// another span.
func (ix *spanIndex) inner(s span) (k1, k2 int, ok bool) {
	k1, _ = slices.BinarySearch(ix.safe, s.x+1)
	k2, _ = slices.BinarySearch(ix.safe, s.y)
	k2--
	return k1, k2, k1 <= k2
}

// count returns the number of tokens of the text of spans.
func (ix *spanIndex) count(spans []span) int {
	total := 0
	var pend []span
	for _, s := range spans {
		k1, k2, ok := ix.inner(s)
		if !ok {
			pend = append(pend, s)
			continue
		}
		pend = append(pend, span{s.x, ix.safe[k1]})
		total += ix.c.tok.Count(ix.str(pend))
		total += int(ix.cum[k2] - ix.cum[k1])
		pend = append(pend[:0], span{ix.safe[k2], s.y})
	}
	if len(pend) > 0 {
		total += ix.c.tok.Count(ix.str(pend))
	}
	return total
}

// cut returns the spans of Decode(Encode(text)[:n]), text being the text of
// spans, which must count more than n tokens. ok is false when a decoded
// prefix is not a prefix of the text (a cut inside a multi-byte character).
func (ix *spanIndex) cut(spans []span, n int) (out []span, ok bool) {
	total := 0
	var pend []span
	// cutIn cuts inside the text of part, which starts total tokens in;
	// done reports that the n-th token ends inside part.
	cutIn := func(part []span) (done, ok bool) {
		text := ix.str(part)
		ids := ix.c.tok.Encode(text)
		need := n - total
		if len(ids) < need {
			total += len(ids)
			out = appendSpans(out, part...)
			return false, true
		}
		prefix := ix.c.tok.Decode(ids[:need])
		if !strings.HasPrefix(text, prefix) {
			return true, false
		}
		rest := len(prefix)
		for _, s := range part {
			if rest <= int(s.y-s.x) {
				out = appendSpans(out, span{s.x, s.x + int32(rest)})
				break
			}
			out = appendSpans(out, s)
			rest -= int(s.y - s.x)
		}
		return true, true
	}
	for _, s := range spans {
		k1, k2, has := ix.inner(s)
		if !has {
			pend = append(pend, s)
			continue
		}
		pend = append(pend, span{s.x, ix.safe[k1]})
		if done, ok := cutIn(pend); done {
			return out, ok
		}
		if need := n - total; int(ix.cum[k2]-ix.cum[k1]) >= need {
			// The n-th token ends in the piece k with the least
			// cum[k+1]-cum[k1] >= need.
			k, _ := slices.BinarySearch(ix.cum[k1+1:k2+1], ix.cum[k1]+int32(need))
			k += k1
			out = appendSpans(out, span{ix.safe[k1], ix.safe[k]})
			total += int(ix.cum[k] - ix.cum[k1])
			done, ok := cutIn([]span{{ix.safe[k], ix.safe[k+1]}})
			return out, done && ok
		}
		total += int(ix.cum[k2] - ix.cum[k1])
		out = appendSpans(out, span{ix.safe[k1], ix.safe[k2]})
		pend = append(pend[:0], span{ix.safe[k2], s.y})
	}
	done, ok := cutIn(pend)
	return out, done && ok
}

// appendSpans appends spans to out, merging a span with the one before it
// when they are adjacent in the text, and dropping empty ones.
func appendSpans(out []span, spans ...span) []span {
	for _, s := range spans {
		switch {
		case s.x == s.y:
		case len(out) > 0 && out[len(out)-1].y == s.x:
			out[len(out)-1].y = s.y
		default:
			out = append(out, s)
		}
	}
	return out
}

// prompt is Corpus.promptWithPrefix through the index: prefix is the spans
// of the prefix text, which counts prefixTokens tokens, or nil for
// Corpus.promptAt. It returns the spans of the text and its token count, or
// ok false when the caller must take the id-based path.
func (ix *spanIndex) prompt(prefix []span, prefixTokens, start, n int) (spans []span, tokens int, ok bool) {
	size := len(ix.c.ids)
	if prefix == nil && n <= 0 {
		return nil, 0, true
	}
	if n < 0 || n > size || start < 0 || start >= size {
		return nil, 0, false
	}
	spans = appendSpans(slices.Clone(prefix), span{ix.off[start], ix.off[start+n]})
	next, target := start+n, prefixTokens+n
	for range maxFixups {
		count := ix.count(spans)
		switch {
		case count == target:
			return spans, target, true
		case count > target:
			if spans, ok = ix.cut(spans, target); !ok {
				return nil, 0, false
			}
		default:
			more := target - count
			if next+more > 2*size {
				return nil, 0, false
			}
			spans = appendSpans(spans, span{ix.off[next], ix.off[next+more]})
			next += more
		}
	}
	return spans, ix.count(spans), true
}
