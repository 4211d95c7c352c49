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

// recordBlockSize is the size of the blocks of whole lines that the
// decoders take (a longer line makes a longer block).
const recordBlockSize = 1 << 20

// recordSource decodes profile_export.jsonl files on parallel goroutines
// and hands out their rows in file order, a batch at a time. One goroutine
// reads the files into blocks of whole lines, one decoder per CPU turns
// blocks into batches, and next returns the batches in order; at most
// three blocks per decoder are in flight. The source owns its goroutines:
// close cancels and waits for them.
type recordSource struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// order carries each block's result channel, in file order.
	order chan chan blockResult
	err   error
}

// recordBlock is a run of whole lines of one file.
type recordBlock struct {
	data      *[]byte
	file      string
	firstLine int
	res       chan blockResult // buffered: a decoder never blocks on it
}

type blockResult struct {
	batch *requestBatch
	err   error
}

var (
	blockPool = sync.Pool{New: func() any { b := make([]byte, 0, recordBlockSize); return &b }}
	batchPool = sync.Pool{New: func() any { return new(requestBatch) }}
)

// startRecords starts decoding files, in order. The caller must close the
// source.
func startRecords(ctx context.Context, files []string) *recordSource {
	ctx, cancel := context.WithCancel(ctx)
	workers := runtime.GOMAXPROCS(0)
	s := &recordSource{cancel: cancel, order: make(chan chan blockResult, 2*workers)}
	work := make(chan *recordBlock, workers)
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
			var dec recordDecoder
			for blk := range work {
				batch := batchPool.Get().(*requestBatch)
				batch.reset()
				err := dec.decodeBlock(batch, blk)
				blockPool.Put(blk.data)
				blk.res <- blockResult{batch, err}
			}
		}()
	}
	return s
}

// read splits files into blocks and queues them in order, until the end
// or until ctx is cancelled. An error is queued as a block's result.
func (s *recordSource) read(ctx context.Context, files []string, work chan<- *recordBlock) {
	queue := func(blk *recordBlock) bool {
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
			blk.res <- blockResult{err: ctx.Err()}
			return false
		}
	}
	fail := func(err error) {
		res := make(chan blockResult, 1)
		res <- blockResult{err: err}
		queue(&recordBlock{res: res})
	}
	var carry []byte
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			fail(fmt.Errorf("read records: %w", err))
			return
		}
		line, eof := 1, false
		carry = carry[:0]
		for !eof {
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
					f.Close()
					fail(fmt.Errorf("read records %s: %w", name, err))
					return
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
			blk := &recordBlock{data: buf, file: name, firstLine: line, res: make(chan blockResult, 1)}
			line += bytes.Count(*buf, []byte{'\n'})
			if !queue(blk) {
				f.Close()
				return
			}
		}
		f.Close()
	}
}

// decodeBlock decodes the lines of blk into b; an error names the file
// and the line.
func (d *recordDecoder) decodeBlock(b *requestBatch, blk *recordBlock) error {
	data := *blk.data
	for line := blk.firstLine; len(data) > 0; line++ {
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if err := d.decode(b, l); err != nil {
			return fmt.Errorf("%s line %d: %w", blk.file, line, err)
		}
	}
	return nil
}

// next returns the next batch of rows in file order, or nil after the
// last; the caller hands it back with release. It blocks until the batch
// is decoded. After an error it keeps returning the error.
func (s *recordSource) next() (*requestBatch, error) {
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

// release recycles a batch that next returned.
func (s *recordSource) release(b *requestBatch) { batchPool.Put(b) }

// close stops the goroutines and waits for them; a decoder busy with a
// block finishes it first. Call it in every case; calling it again does
// nothing.
func (s *recordSource) close() {
	s.cancel()
	s.wg.Wait()
}
