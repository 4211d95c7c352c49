package tokenizer

import (
	_ "embed"
	"errors"
	"hash/maphash"
	"sync"
)

// o200kVocabFile is o200k_base's mergeable vocabulary: one length byte per
// rank 0..o200kMergeable-1, then every rank's bytes in rank order. It is
// generated from tiktoken-go's table (TestO200kVocabFile, -update) and read
// in place: the token bytes are never copied to the heap.
//
//go:embed o200k_base.vocab
var o200kVocabFile string

// bpe is a byte-pair encoding over a vocabulary held without pointers, so
// that the garbage collector never scans it: the token bytes (data, read in
// place from the binary), their offsets (tokens[r] = data[offs[r]:offs[r+1]]
// for rank r) and an open-addressing hash table from bytes to rank. For
// o200k_base that is ~2.8 MB of heap, against ~10 MB for a Go map and a
// reverse slice of strings, which every collection would scan.
type bpe struct {
	data  string
	offs  []uint32
	table []uint32 // rank+1; 0 is empty
	mask  uint64
	seed  maphash.Seed
}

// loadO200k returns the process-wide o200k_base encoding, built on first
// use (~10 ms).
var loadO200k = sync.OnceValues(func() (*bpe, error) {
	return newBPE(o200kVocabFile, o200kMergeable)
})

// newBPE reads a vocabulary of n ranks laid out as o200kVocabFile is,
// aliasing file.
func newBPE(file string, n int) (*bpe, error) {
	if len(file) < n {
		return nil, errors.New("o200k vocabulary: file too short")
	}
	b := &bpe{data: file[n:], offs: make([]uint32, n+1), seed: maphash.MakeSeed()}
	off := 0
	for r := range n {
		b.offs[r] = uint32(off)
		off += int(file[r])
	}
	b.offs[n] = uint32(off)
	if off != len(b.data) {
		return nil, errors.New("o200k vocabulary: lengths do not add up to the file")
	}
	size := 1
	for size < 2*n {
		size <<= 1
	}
	b.table, b.mask = make([]uint32, size), uint64(size-1)
	for r := range n {
		tok := b.token(r)
		for i := maphash.String(b.seed, tok) & b.mask; ; i = (i + 1) & b.mask {
			if b.table[i] == 0 {
				b.table[i] = uint32(r) + 1
				break
			}
			if b.token(int(b.table[i]-1)) == tok {
				return nil, errors.New("o200k vocabulary: a token appears twice")
			}
		}
	}
	return b, nil
}

// token returns the bytes of rank r.
func (b *bpe) token(r int) string { return b.data[b.offs[r]:b.offs[r+1]] }

// rank returns the rank of the token with bytes s, or -1.
func (b *bpe) rank(s string) int {
	for i := maphash.String(b.seed, s) & b.mask; ; i = (i + 1) & b.mask {
		e := b.table[i]
		if e == 0 {
			return -1
		}
		if b.token(int(e-1)) == s {
			return int(e - 1)
		}
	}
}

// encode calls yield with the rank of every token of text (valid UTF-8
// without special tokens) in order: each piece of the pre-tokenizer is a
// token itself or is byte-pair merged.
func (b *bpe) encode(text string, yield func(rank int)) {
	splitO200k(text, func(start, end int) { b.piece(text[start:end], yield) })
}

// piece encodes one piece of the pre-tokenizer's split.
func (b *bpe) piece(piece string, yield func(rank int)) {
	if r := b.rank(piece); r >= 0 {
		yield(r)
		return
	}
	b.merge(piece, yield)
}

// decode appends the bytes of the given ranks to dst; ranks outside the
// vocabulary are skipped.
func (b *bpe) decode(dst []byte, ranks []int) []byte {
	for _, r := range ranks {
		if r >= 0 && r < len(b.offs)-1 {
			dst = append(dst, b.token(r)...)
		}
	}
	return dst
}
