package query

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"
)

// lineBlockSize is the size of the blocks of whole lines that a
// lineSource's decoders take (a longer line makes a longer block).
const lineBlockSize = 1 << 20

// blockPool recycles the blocks' buffers.
var blockPool = sync.Pool{New: func() any { b := make([]byte, 0, lineBlockSize); return &b }}

// lineDecoder decodes one JSONL line into a batch of rows of type B; a
// blank line adds nothing. Each decoding goroutine has its own.
type lineDecoder[B any] interface {
	decodeLine(b *B, line []byte) error
}

// lineSource decodes JSONL files (records, GPU readings, server metric
// samples) on parallel goroutines and hands out their batches in file
// order: one goroutine reads the files into blocks of whole lines, one
// decoder per CPU turns each block into a batch, and next returns the
// batches in order; at most three blocks per decoder are in flight. The
// source owns its goroutines: close cancels and waits for them.
type lineSource[B any] struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// order carries each block's result channel, in file order.
	order chan chan lineResult[B]
	err   error
}

type lineResult[B any] struct {
	batch *B
	err   error
}

// lineBlock is a run of whole lines of one file.
type lineBlock[B any] struct {
	data      *[]byte // from blockPool
	file      string
	firstLine int
	res       chan lineResult[B] // buffered: a decoder never blocks on it
}

// startLines starts decoding files, in order, each worker with a decoder
// from newDecoder, into batches from newBatch (which may recycle them;
// nil: new ones). The caller must close the source.
func startLines[B any](ctx context.Context, files []string, newDecoder func() lineDecoder[B], newBatch func() *B) *lineSource[B] {
	ctx, cancel := context.WithCancel(ctx)
	workers := runtime.GOMAXPROCS(0)
	s := &lineSource[B]{cancel: cancel, order: make(chan chan lineResult[B], 2*workers)}
	work := make(chan *lineBlock[B], workers)
	if newBatch == nil {
		newBatch = func() *B { return new(B) }
	}
	s.wg.Add(1 + workers)
	go func() {
		defer s.wg.Done()
		defer close(s.order)
		defer close(work)
		s.read(ctx, files, work)
	}()
	for range workers {
		go func() {
			defer s.wg.Done()
			dec := newDecoder()
			for blk := range work {
				b := newBatch()
				err := decodeLines(dec, b, blk)
				blockPool.Put(blk.data)
				blk.res <- lineResult[B]{b, err}
			}
		}()
	}
	return s
}

// decodeLines decodes the lines of blk into b; an error names the file
// and the line.
func decodeLines[B any](dec lineDecoder[B], b *B, blk *lineBlock[B]) error {
	data := *blk.data
	for line := blk.firstLine; len(data) > 0; line++ {
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if err := dec.decodeLine(b, l); err != nil {
			return fmt.Errorf("%s line %d: %w", blk.file, line, err)
		}
	}
	return nil
}

// read splits files into blocks and queues them in order, until the end
// or until ctx is cancelled. An error is queued as a block's result.
func (s *lineSource[B]) read(ctx context.Context, files []string, work chan<- *lineBlock[B]) {
	queue := func(blk *lineBlock[B]) bool {
		select {
		case s.order <- blk.res:
		case <-ctx.Done():
			return false
		}
		if blk.data == nil {
			return true
		}
		select {
		case work <- blk:
			return true
		case <-ctx.Done():
			blk.res <- lineResult[B]{err: ctx.Err()}
			return false
		}
	}
	for _, name := range files {
		if err := s.readFile(name, queue); err != nil {
			res := make(chan lineResult[B], 1)
			res <- lineResult[B]{err: err}
			queue(&lineBlock[B]{res: res})
			return
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// readFile queues the blocks of one file; it returns early, without an
// error, when queue refuses a block (the source is closing).
func (s *lineSource[B]) readFile(name string, queue func(*lineBlock[B]) bool) error {
	f, err := os.Open(name)
	if err != nil {
		return err // names the file
	}
	defer f.Close()
	var carry []byte
	line := 1
	for eof := false; !eof; {
		buf := blockPool.Get().(*[]byte)
		b := append((*buf)[:0], carry...)
		for { // read until a line ends in what was read, or the file does
			if len(b) == cap(b) { // a line longer than a block
				b = slices.Grow(b, cap(b))
			}
			n, err := io.ReadFull(f, b[len(b):cap(b)])
			b = b[:len(b)+n]
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				eof = true
				break
			}
			if err != nil {
				blockPool.Put(buf)
				return fmt.Errorf("read %s: %w", name, err)
			}
			if bytes.IndexByte(b[len(b)-n:], '\n') >= 0 {
				break
			}
		}
		cut := len(b)
		if !eof {
			cut = bytes.LastIndexByte(b, '\n') + 1
		}
		carry = append(carry[:0], b[cut:]...)
		*buf = b[:cut]
		blk := &lineBlock[B]{data: buf, file: name, firstLine: line, res: make(chan lineResult[B], 1)}
		line += bytes.Count(*buf, []byte{'\n'})
		if !queue(blk) {
			return nil
		}
	}
	return nil
}

// next returns the next batch in file order, or nil after the last. It
// blocks until the batch is decoded. After an error it keeps returning
// the error.
func (s *lineSource[B]) next() (*B, error) {
	if s.err != nil {
		return nil, s.err
	}
	res, ok := <-s.order
	if !ok {
		return nil, nil
	}
	r := <-res
	if r.err != nil {
		s.err = r.err
		return nil, r.err
	}
	return r.batch, nil
}

// close stops the goroutines and waits for them; a decoder busy with a
// block finishes it first. Call it in every case; calling it again does
// nothing.
func (s *lineSource[B]) close() {
	s.cancel()
	s.wg.Wait()
}
