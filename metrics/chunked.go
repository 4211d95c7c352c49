package metrics

import (
	"iter"
	"math/bits"
)

// Block sizes of a chunked log: headBlocks blocks doubling from headLen
// (64, 128, 256, 512 values), so that a short log stays small, then blocks
// of blockLen values.
const (
	headLen    = 64
	headBlocks = 4
	blockLen   = headLen << headBlocks // 1,024
	headTotal  = blockLen - headLen    // values in the head blocks
)

// chunked is a log that only grows, kept in blocks that are never copied
// or moved once allocated (issue 19): unlike a slice grown by append, it
// never holds an old and a new array at once, and its unused capacity is
// at most one block (blockLen values); only the list of blocks (24 bytes
// a block) grows by append. Values are read in order with all
// or values, by index with at, and copied out with appendTo where a
// consumer needs them contiguous.
//
// The zero value is an empty log ready to use. A chunked log is not safe
// for concurrent use.
type chunked[T any] struct {
	blocks [][]T
	n      int
}

// blockCap returns the capacity of block k.
func blockCap(k int) int {
	if k < headBlocks {
		return headLen << k
	}
	return blockLen
}

// locate returns the block and the index within it of value i.
func locate(i int) (block, j int) {
	if i < headTotal {
		// Block k of the head starts at headLen*(2^k-1).
		block = bits.Len(uint(i/headLen+1)) - 1
		return block, i - headLen*(1<<block-1)
	}
	i -= headTotal
	return headBlocks + i/blockLen, i % blockLen
}

// len returns the number of values.
func (c *chunked[T]) len() int { return c.n }

// capacity returns the number of values the blocks hold room for.
func (c *chunked[T]) capacity() int {
	n := 0
	for _, b := range c.blocks {
		n += cap(b)
	}
	return n
}

// room returns the last block with room for at least one more value,
// adding a block when the last is full. limit, when positive and above
// the length, caps the capacity of a new block so that the log never has
// room for more than limit values.
func (c *chunked[T]) room(limit int) *[]T {
	k := len(c.blocks)
	if k == 0 || len(c.blocks[k-1]) == cap(c.blocks[k-1]) {
		size := blockCap(k)
		if limit > c.n {
			size = min(size, limit-c.n)
		}
		c.blocks = append(c.blocks, make([]T, 0, size))
		k++
	}
	return &c.blocks[k-1]
}

// push appends v.
func (c *chunked[T]) push(v T) { c.pushCapped(v, 0) }

// pushCapped appends v; a positive limit above the length caps the
// capacity the log allocates at limit values (see room).
func (c *chunked[T]) pushCapped(v T, limit int) {
	b := c.room(limit)
	*b = append(*b, v)
	c.n++
}

// pushAll appends vs in order.
func (c *chunked[T]) pushAll(vs []T) {
	for len(vs) > 0 {
		b := c.room(0)
		k := min(len(vs), cap(*b)-len(*b))
		*b = append(*b, vs[:k]...)
		c.n += k
		vs = vs[k:]
	}
}

// at returns a pointer to value i, which must be below len(); it stays
// valid as the log grows.
func (c *chunked[T]) at(i int) *T {
	b, j := locate(i)
	return &c.blocks[b][j]
}

// all yields each value's index and a pointer to it, in order.
func (c *chunked[T]) all() iter.Seq2[int, *T] {
	return func(yield func(int, *T) bool) {
		i := 0
		for _, b := range c.blocks {
			for j := range b {
				if !yield(i, &b[j]) {
					return
				}
				i++
			}
		}
	}
}

// values yields values lo to hi-1 in order (0 <= lo <= hi <= len()).
func (c *chunked[T]) values(lo, hi int) iter.Seq[T] {
	return func(yield func(T) bool) {
		for lo < hi {
			b, j := locate(lo)
			blk := c.blocks[b][j:min(len(c.blocks[b]), j+hi-lo)]
			for _, v := range blk {
				if !yield(v) {
					return
				}
			}
			lo += len(blk)
		}
	}
}

// appendTo appends the values to dst in order and returns the extended
// slice.
func (c *chunked[T]) appendTo(dst []T) []T {
	for _, b := range c.blocks {
		dst = append(dst, b...)
	}
	return dst
}

// copyTo copies the values to dst, which must be at least len() long, in
// order.
func (c *chunked[T]) copyTo(dst []T) {
	i := 0
	for _, b := range c.blocks {
		i += copy(dst[i:], b)
	}
}
