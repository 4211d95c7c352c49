package sink

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// StreamOptions configure a record stream.
type StreamOptions struct {
	// Interval seals the open segment when its first record is this old
	// (default 10 s), exactly: a timer on that deadline, not a periodic
	// check.
	Interval time.Duration
	// Records seals the open segment at this many lines (default 10,000).
	Records int
	// Bytes seals the open segment once it holds this many bytes (default
	// 2 MiB), so that a burst of records (10,000 streams ending together
	// write 17 MB of records) costs the process at most Bytes before it
	// leaves (4 MiB held ~2 MB more at the peak of 10,000 streams, issue
	// 19), and each segment stays one modest object.
	Bytes int
	// Queue is how many sealed segments are held in memory (default 4):
	// waiting to be written to the spool, or, once there, kept for upload
	// without reading them back. Further spooled segments are read back
	// from disk when their turn comes; Write waits while Queue segments
	// wait for the spool.
	Queue int
	// SpoolDir is the run's spool (required): every sealed segment is
	// written there, fsynced, before it is queued for upload, and removed
	// once the store acknowledged it. Streams of one run share it.
	SpoolDir string
	// MaxSpoolBytes bounds the sealed segments not yet stored (default
	// 1 GiB); past it Write waits, so records are never dropped.
	MaxSpoolBytes int64
	// Compose names the object the stream's segments are composed into at
	// the end (for the spool's descriptor; optional).
	Compose string
}

func (o *StreamOptions) defaults() {
	if o.Interval <= 0 {
		o.Interval = 10 * time.Second
	}
	if o.Records <= 0 {
		o.Records = 10000
	}
	if o.Bytes <= 0 {
		o.Bytes = 2 << 20
	}
	if o.Queue <= 0 {
		o.Queue = 4
	}
	if o.MaxSpoolBytes <= 0 {
		o.MaxSpoolBytes = 1 << 30
	}
}

// StreamStats describe how a stream's delivery went.
type StreamStats struct {
	Records  int64 `json:"records"`
	Segments int64 `json:"segments"`
	// MaxQueueDepth is the most sealed segments ever waiting for upload.
	MaxQueueDepth int64 `json:"max_queue_depth"`
	// SpilledBytes are the bytes of segments that waited beyond the Queue
	// held in memory, and so were read back from the spool to be uploaded.
	SpilledBytes int64 `json:"spilled_bytes"`
	// SpoolWaits counts the times Write waited for spool space.
	SpoolWaits  int64    `json:"spool_waits"`
	Undelivered []string `json:"undelivered,omitempty"`
}

// segment is a sealed run of complete lines: in memory until it is in the
// spool, and in memory as well while it is among the first Queue waiting.
type segment struct {
	seq  int
	name string // object name, e.g. records/000001.jsonl
	data chunks // empty once released
	size int64
	file string // spool file, once written; "" if the disk refused it
}

// Stream turns a byte stream of newline-terminated records into rolling,
// immutable segment objects under the run (dir/000001.jsonl, ...), written
// while the run goes on: a segment is sealed when its first record is one
// interval old, so that a killed process loses at most the records of the
// last interval. A sealed segment is durable before anything depends on
// it: a spooler goroutine writes it to the spool and fsyncs it, then queues
// it for the uploader goroutine, which removes the spool file only when the
// store acknowledged the object. Write never waits on storage (only on a
// full spool, counted). Close delivers everything or says exactly what is
// left and where; a process that dies leaves it for Recover.
type Stream struct {
	run  *Run
	dir  string
	opts StreamOptions

	mu       sync.Mutex
	cond     *sync.Cond // broadcast on every change of the fields below
	wake     *sync.Cond // signals the spooler: records, a seal, or Close
	idle     bool       // the spooler waits on wake
	cur      chunks
	curLines int
	walled   int         // bytes of cur the spooler has taken for the open segment's write-ahead file
	deadline time.Time   // when the open segment seals; zero while it has no record
	timer    *time.Timer // fires sealDue at deadline; armed by the segment's first record
	seq      int
	sealed   []string  // names of every sealed segment, in order
	pending  []segment // sealed, not yet in the spool: the spooler's queue
	spool    []segment // in the spool, oldest first: the uploader's queue
	waiting  int64     // bytes of pending and spool
	inMemory int       // spool entries that still hold their data
	closed   bool
	failed   []segment // segments the store refused for good
	stats    StreamStats
	// onSeal, when set (by tests, before the first Write), is called with
	// st.mu held as each segment is sealed.
	onSeal func(name string, at time.Time)
	// onSpooled, when set (by benchmarks, before the first Write), is
	// called by the spooler each time more of the stream is on local disk,
	// with how many bytes of it are.
	onSpooled func(bytes int64)

	ctx      context.Context // ends the uploader's retries (Close's deadline)
	cancel   context.CancelFunc
	spooler  sync.WaitGroup
	uploader sync.WaitGroup
}

// NewStream starts a stream whose segments go under the run's dir/. It
// locks the spool for this process and records the stream in the spool's
// descriptor, so that Recover can finish its uploads if the process dies.
// The stream's goroutines and seal timer run until Close.
func (r *Run) NewStream(dir string, opts StreamOptions) (*Stream, error) {
	opts.defaults()
	if opts.SpoolDir == "" {
		return nil, errors.New("stream: no spool directory")
	}
	if err := os.MkdirAll(opts.SpoolDir, 0o700); err != nil {
		return nil, fmt.Errorf("stream: spool: %w", err)
	}
	dir = strings.TrimSuffix(dir, "/")
	if err := r.joinSpool(opts.SpoolDir, SpoolStream{Dir: dir, Compose: opts.Compose}); err != nil {
		return nil, fmt.Errorf("stream: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st := &Stream{run: r, dir: dir, opts: opts, ctx: ctx, cancel: cancel}
	st.cond = sync.NewCond(&st.mu)
	st.wake = sync.NewCond(&st.mu)
	// Waiters on cond also wait for the uploader's context.
	context.AfterFunc(ctx, st.broadcast)
	// One timer for the stream's life, created stopped: Write re-arms it
	// without allocating.
	st.timer = time.AfterFunc(time.Duration(math.MaxInt64), st.sealDue)
	st.timer.Stop()
	st.spooler.Add(1)
	go st.spoolSegments()
	st.uploader.Add(1)
	go st.upload()
	return st, nil
}

// broadcast wakes every goroutine waiting on the stream's state.
func (st *Stream) broadcast() {
	st.mu.Lock()
	st.cond.Broadcast()
	st.mu.Unlock()
}

// Write appends records (complete or partial lines). The first complete
// line of an open segment arms its seal timer; a segment is sealed at once
// when it reaches the record or byte limit. Write waits only when the spool
// is full, which is counted in SpoolWaits, never on storage.
func (st *Stream) Write(p []byte) (int, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return 0, errors.New("stream: write after close")
	}
	st.cur.Write(p)
	if st.idle {
		st.idle = false
		st.wake.Signal()
	}
	n := bytes.Count(p, []byte{'\n'})
	first := st.curLines == 0 && n > 0
	st.curLines += n
	st.stats.Records += int64(n)
	if st.curLines >= st.opts.Records || (st.cur.Len() >= st.opts.Bytes && n > 0) {
		st.sealLocked()
	} else if first {
		st.armLocked(time.Now())
	}
	return len(p), nil
}

// sealLocked cuts the open segment at its last newline and hands it to the
// spooler. The partial line carried over is no record yet, so the next
// segment's clock starts with its first complete line. It waits (counted)
// while the spooler is Queue segments behind or the spool is full, unless
// the stream is giving up (Close's deadline passed): the spooler writes to
// local disk and never waits on the store, so those waits are short.
func (st *Stream) sealLocked() {
	rest, ok := st.cur.cutAfterLastNewline()
	if !ok {
		return
	}
	st.disarmLocked()
	// Hand the buffers themselves to the segment (no copy) and carry a
	// partial last line over.
	data := st.cur
	st.cur = rest
	st.curLines = 0
	st.walled = 0 // the carried-over bytes are the next segment's
	st.seq++
	seg := segment{seq: st.seq, name: st.segmentName(st.seq), data: data, size: int64(data.Len())}
	st.sealed = append(st.sealed, seg.name)
	st.stats.Segments++
	if st.onSeal != nil {
		st.onSeal(seg.name, time.Now())
	}
	for st.full(seg.size) {
		st.stats.SpoolWaits++
		st.cond.Wait()
	}
	st.pending = append(st.pending, seg)
	st.waiting += seg.size
	st.cond.Broadcast()
	st.wake.Signal()
}

// segmentName is the object name of segment seq.
func (st *Stream) segmentName(seq int) string {
	return fmt.Sprintf("%s/%06d.jsonl", st.dir, seq)
}

// full reports whether a sealed segment of size must wait for room: the
// spooler holds Queue segments, or the spool would exceed MaxSpoolBytes.
// Something must be waiting for it to free room, and a stream that is
// giving up never waits.
func (st *Stream) full(size int64) bool {
	if len(st.pending)+len(st.spool) == 0 || st.ctx.Err() != nil {
		return false
	}
	return len(st.pending) >= st.opts.Queue || st.waiting+size > st.opts.MaxSpoolBytes
}

// upload stores spooled segments, oldest first, each retried with backoff
// until the store acknowledges it; only then is its spool file removed. It
// runs until the stream is closed and everything is delivered, or the
// stream's context ends (Close's deadline), which leaves the rest spooled.
func (st *Stream) upload() {
	defer st.uploader.Done()
	for {
		st.mu.Lock()
		for len(st.spool) == 0 && !(st.closed && len(st.pending) == 0) && st.ctx.Err() == nil {
			st.cond.Wait()
		}
		if len(st.spool) == 0 || st.ctx.Err() != nil {
			st.mu.Unlock()
			return
		}
		seg := st.spool[0]
		st.mu.Unlock()

		err := st.deliver(seg)
		if err != nil && st.ctx.Err() != nil {
			return // given up at Close's deadline: it stays in the spool
		}

		st.mu.Lock()
		st.spool = st.spool[1:]
		st.waiting -= seg.size
		if seg.data.Len() > 0 && seg.file != "" {
			st.inMemory--
		}
		if err != nil {
			st.failed = append(st.failed, seg) // refused for good; kept as is
		} else {
			seg.data.release()
			if seg.file != "" {
				_ = os.Remove(seg.file)
			}
		}
		st.cond.Broadcast()
		st.mu.Unlock()
	}
}

// deliver uploads one segment from memory, or read back from its spool
// file, retrying until the store acknowledges it or the context ends.
func (st *Stream) deliver(seg segment) error {
	src := seg.data.source()
	if seg.data.Len() == 0 && seg.file != "" {
		data, err := os.ReadFile(seg.file)
		if err != nil {
			return fmt.Errorf("read spool: %w", err)
		}
		src = bytesSource(data)
	}
	_, err := st.run.putObject(st.ctx, seg.name, src, false)
	return err
}

// Close seals what is left, waits until every sealed segment is in the
// spool (local disk only), then until every one is stored or ctx ends. It
// returns the names of the sealed segments in order, for Compose, and an
// error naming every segment that was not delivered and the spool file that
// holds it. Undelivered segments stay in the spool for Recover.
func (st *Stream) Close(ctx context.Context) ([]string, StreamStats, error) {
	stop := context.AfterFunc(ctx, st.cancel)
	defer stop()
	st.mu.Lock()
	if st.cur.Len() > 0 && st.cur.lastByte() != '\n' {
		st.cur.Write([]byte{'\n'}) // a torn last line still ends in a newline
	}
	if st.cur.Len() > 0 {
		st.sealLocked()
	}
	st.closed = true
	st.disarmLocked()
	st.cond.Broadcast()
	st.wake.Signal()
	st.mu.Unlock()

	st.spooler.Wait()
	st.uploader.Wait()
	st.cancel()

	st.mu.Lock()
	left := append(st.spool, st.failed...)
	st.spool, st.failed = nil, nil
	stats := st.stats
	sealed := st.sealed
	st.mu.Unlock()
	if len(left) == 0 {
		return sealed, stats, nil
	}
	sort.Slice(left, func(i, j int) bool { return left[i].name < left[j].name })
	var msgs []string
	for _, seg := range left {
		where := seg.file
		if where == "" {
			where = "(memory only: the spool could not be written)"
		}
		stats.Undelivered = append(stats.Undelivered, where)
		msgs = append(msgs, fmt.Sprintf("%s → %s", seg.name, where))
	}
	return sealed, stats, fmt.Errorf("%d of %d record segments were not stored in %s; they are in the local spool:\n  %s",
		len(left), len(sealed), st.run.Location(), strings.Join(msgs, "\n  "))
}
