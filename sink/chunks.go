package sink

import (
	"bytes"
	"io"
	"os"
	"sync"
)

// chunkSize is the size of the buffers a stream's records are written into.
const chunkSize = 64 << 10

// chunkPool recycles the buffers of delivered segments, so that a long
// run's records cost no allocation once the first segments have gone out.
var chunkPool = sync.Pool{New: func() any { return new([chunkSize]byte) }}

// chunks is a byte sequence held in fixed-size buffers from chunkPool. A
// growing segment is appended to, never copied: one contiguous buffer would
// be copied at every doubling and cost twice its size in garbage.
type chunks struct {
	bufs []*[chunkSize]byte
	n    int // bytes held; the last buffer holds n - (len(bufs)-1)*chunkSize
}

// Len returns the number of bytes held.
func (c *chunks) Len() int { return c.n }

// Write appends p. It never fails.
func (c *chunks) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		if c.n == len(c.bufs)*chunkSize { // full (or empty)
			c.bufs = append(c.bufs, chunkPool.Get().(*[chunkSize]byte))
		}
		off := c.n - (len(c.bufs)-1)*chunkSize
		k := copy(c.bufs[len(c.bufs)-1][off:], p)
		c.n += k
		p = p[k:]
	}
	return total, nil
}

// part returns buffer i's bytes.
func (c *chunks) part(i int) []byte {
	end := chunkSize
	if i == len(c.bufs)-1 {
		end = c.n - i*chunkSize
	}
	return c.bufs[i][:end]
}

// lastByte returns the last byte held, or 0 when empty.
func (c *chunks) lastByte() byte {
	if c.n == 0 {
		return 0
	}
	b := c.part(len(c.bufs) - 1)
	return b[len(b)-1]
}

// cutAfterLastNewline splits c after its last '\n': c keeps the complete
// lines and the returned chunks hold the rest (a partial last line). ok is
// false, and c unchanged, when c holds no newline.
func (c *chunks) cutAfterLastNewline() (rest chunks, ok bool) {
	for i := len(c.bufs) - 1; i >= 0; i-- {
		k := bytes.LastIndexByte(c.part(i), '\n')
		if k < 0 {
			continue
		}
		end := i*chunkSize + k + 1
		for j := i; j < len(c.bufs); j++ {
			p := c.part(j)
			if j == i {
				p = p[k+1:]
			}
			rest.Write(p)
		}
		for j := i + 1; j < len(c.bufs); j++ {
			chunkPool.Put(c.bufs[j])
			c.bufs[j] = nil
		}
		c.bufs, c.n = c.bufs[:i+1], end
		return rest, true
	}
	return chunks{}, false
}

// WriteTo writes the bytes held to w.
func (c *chunks) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for i := range c.bufs {
		n, err := w.Write(c.part(i))
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// appendFrom appends to dst the bytes held from offset off on, at most
// limit of them.
func (c *chunks) appendFrom(dst []byte, off, limit int) []byte {
	end := min(c.n, off+limit)
	for off < end {
		i := off / chunkSize
		p := c.part(i)[off-i*chunkSize:]
		p = p[:min(len(p), end-off)]
		dst = append(dst, p...)
		off += len(p)
	}
	return dst
}

// writeFrom writes the bytes held from offset off on to w.
func (c *chunks) writeFrom(w io.Writer, off int) error {
	for off < c.n {
		i := off / chunkSize
		p := c.part(i)[off-i*chunkSize:]
		if _, err := w.Write(p); err != nil {
			return err
		}
		off += len(p)
	}
	return nil
}

// source returns the bytes held as an upload source; c must not change
// while it is read.
func (c *chunks) source() source {
	return func(func()) (io.Reader, func() error) {
		rs := make([]io.Reader, len(c.bufs))
		for i := range c.bufs {
			rs[i] = bytes.NewReader(c.part(i))
		}
		return io.MultiReader(rs...), func() error { return nil }
	}
}

// writeFileSync stores the bytes held durably in a new file at path (see
// writeSync): once it returns nil, the file survives a crash.
func (c *chunks) writeFileSync(path string) error {
	return writeSync(path, func(f *os.File) error {
		_, err := c.WriteTo(f)
		return err
	})
}

// release returns the buffers to the pool; c is empty afterwards.
func (c *chunks) release() {
	for i, b := range c.bufs {
		chunkPool.Put(b)
		c.bufs[i] = nil
	}
	c.bufs, c.n = c.bufs[:0], 0
}
