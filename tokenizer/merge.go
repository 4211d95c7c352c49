package tokenizer

// noPair marks a part that cannot merge with the next one (or was merged
// into the previous one).
const noPair = -1

// part is one part of a piece being merged: it starts at its index in the
// piece and ends where next starts; pair is the rank of the token that
// merging it with the next part would make, or noPair.
type part struct {
	prev, next int32
	pair       int32
	gone       bool
}

// merge byte-pair encodes piece, which is not a token itself, and calls
// yield with the rank of each resulting token in order. As tiktoken does,
// it starts from single bytes (each one a token in these vocabularies) and
// merges, again and again, the adjacent pair whose merged bytes have the
// lowest rank, the leftmost of equal ones, until no pair is a token.
//
// Candidate pairs wait in a binary heap ordered by (rank, position); a
// merge changes only the pairs on each side of it, so a piece of n bytes
// costs O(n log n) (tiktoken's linear scan is quadratic, which long runs of
// one character make slow). Entries a merge made stale are skipped when
// popped.
func (b *bpe) merge(piece string, yield func(rank int)) {
	n := len(piece)
	var partBuf [64]part
	var heapBuf [64]uint64
	parts := partBuf[:0]
	if n+1 > len(partBuf) {
		parts = make([]part, 0, n+1)
	}
	parts = parts[:n+1] // parts[n] ends the list
	for i := range parts {
		parts[i] = part{prev: int32(i - 1), next: int32(i + 1), pair: noPair}
	}
	h := pairHeap(heapBuf[:0])
	// pairRank is the rank of part i merged with the one after it.
	pairRank := func(i int32) int32 {
		j := parts[i].next
		if int(j) >= n {
			return noPair
		}
		return int32(b.rank(piece[i:parts[j].next]))
	}
	for i := range int32(n) {
		if r := pairRank(i); r >= 0 {
			parts[i].pair = r
			h.push(r, i)
		}
	}
	for len(h) > 0 {
		r, i := h.pop()
		if parts[i].gone || parts[i].pair != r {
			continue // stale: a merge beside it changed its pair
		}
		j := parts[i].next
		k := parts[j].next
		parts[j].gone = true
		parts[i].next = k
		if int(k) <= n {
			parts[k].prev = i
		}
		parts[i].pair = pairRank(i)
		if parts[i].pair >= 0 {
			h.push(parts[i].pair, i)
		}
		if p := parts[i].prev; p >= 0 {
			parts[p].pair = pairRank(p)
			if parts[p].pair >= 0 {
				h.push(parts[p].pair, p)
			}
		}
	}
	for i := int32(0); int(i) < n; i = parts[i].next {
		yield(b.rank(piece[i:parts[i].next]))
	}
}

// pairHeap is a binary min-heap of candidate merges, each packed as
// rank<<32 | position so that one comparison orders by rank, then by
// position (the leftmost first).
type pairHeap []uint64

func (h *pairHeap) push(rank, pos int32) {
	*h = append(*h, uint64(rank)<<32|uint64(uint32(pos)))
	s := *h
	for c := len(s) - 1; c > 0; {
		p := (c - 1) / 2
		if s[p] <= s[c] {
			break
		}
		s[p], s[c] = s[c], s[p]
		c = p
	}
}

func (h *pairHeap) pop() (rank, pos int32) {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for p := 0; ; {
		c := 2*p + 1
		if c >= len(s) {
			break
		}
		if c+1 < len(s) && s[c+1] < s[c] {
			c++
		}
		if s[p] <= s[c] {
			break
		}
		s[p], s[c] = s[c], s[p]
		p = c
	}
	*h = s
	return int32(top >> 32), int32(uint32(top))
}
