package sink

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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
	// 4 MiB), so that a burst of records (10,000 streams ending together
	// write 17 MB of records) costs the process at most Bytes before it
	// leaves, and each segment stays one modest object.
	Bytes int
	// Queue is how many sealed segments wait in memory for upload before
	// further ones spill to disk (default 4).
	Queue int
	// SpoolDir holds spilled segments (required).
	SpoolDir string
	// MaxSpoolBytes bounds the spool (default 1 GiB); a full spool makes
	// Write wait, so records are never dropped.
	MaxSpoolBytes int64
}

func (o *StreamOptions) defaults() {
	if o.Interval <= 0 {
		o.Interval = 10 * time.Second
	}
	if o.Records <= 0 {
		o.Records = 10000
	}
	if o.Bytes <= 0 {
		o.Bytes = 4 << 20
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
	Records       int64    `json:"records"`
	Segments      int64    `json:"segments"`
	MaxQueueDepth int64    `json:"max_queue_depth"`
	SpilledBytes  int64    `json:"spilled_bytes"`
	SpoolWaits    int64    `json:"spool_waits"`
	Undelivered   []string `json:"undelivered,omitempty"`
}

// segment is a sealed run of complete lines, in memory or spilled to disk.
type segment struct {
	name string // object name, e.g. records/000001.jsonl
	data chunks // empty once spilled
	size int64
	file string // spool file when spilled
}

// Stream turns a byte stream of newline-terminated records into rolling,
// immutable segment objects under the run (dir/000001.jsonl, ...), written
// while the run goes on: a segment is sealed when its first record is one
// interval old, so that a killed process loses at most the records of the
// last interval. Write never waits on storage: an uploader goroutine
// owns all writes, retrying with backoff; when its queue is full, sealed
// segments spill to the local spool. Close delivers everything or says
// exactly what is left and where.
type Stream struct {
	run  *Run
	dir  string
	opts StreamOptions

	mu       sync.Mutex
	cur      chunks
	curLines int
	deadline time.Time   // when the open segment seals; zero while it has no record
	timer    *time.Timer // fires sealDue at deadline; armed by the segment's first record
	seq      int
	sealed   []string // names of every sealed segment, in order
	spool    []segment
	spoolSz  int64
	closed   bool
	spoolCnd *sync.Cond
	// onSeal, when set (by tests, before the first Write), is called with
	// st.mu held as each segment is sealed.
	onSeal func(name string, at time.Time)

	queue    chan segment
	kick     chan struct{}
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	stats    StreamStats
	depth    atomic.Int64
	uploadMu sync.Mutex
	failed   []segment // segments given up on at Close
}

// NewStream starts a stream whose segments go under the run's dir/. The
// stream's uploader goroutine and seal timer run until Close.
func (r *Run) NewStream(dir string, opts StreamOptions) (*Stream, error) {
	opts.defaults()
	if opts.SpoolDir == "" {
		return nil, errors.New("stream: no spool directory")
	}
	if err := os.MkdirAll(opts.SpoolDir, 0o700); err != nil {
		return nil, fmt.Errorf("stream: spool: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st := &Stream{run: r, dir: strings.TrimSuffix(dir, "/"), opts: opts,
		queue: make(chan segment, opts.Queue), kick: make(chan struct{}, 1),
		ctx: ctx, cancel: cancel}
	st.spoolCnd = sync.NewCond(&st.mu)
	// One timer for the stream's life, created stopped: Write re-arms it
	// without allocating.
	st.timer = time.AfterFunc(time.Duration(math.MaxInt64), st.sealDue)
	st.timer.Stop()
	st.wg.Add(1)
	go st.uploader()
	return st, nil
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
// uploader, or to the spool when the upload queue is full. The partial line
// carried over is no record yet, so the next segment's clock starts with
// its first complete line.
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
	st.seq++
	seg := segment{name: fmt.Sprintf("%s/%06d.jsonl", st.dir, st.seq), data: data, size: int64(data.Len())}
	st.sealed = append(st.sealed, seg.name)
	st.stats.Segments++
	if st.onSeal != nil {
		st.onSeal(seg.name, time.Now())
	}
	select {
	case st.queue <- seg:
		if d := st.depth.Add(1); d > st.stats.MaxQueueDepth {
			st.stats.MaxQueueDepth = d
		}
	default:
		st.spillLocked(seg)
	}
}

// spillLocked writes a segment to the spool and lists it for the uploader.
// A full spool makes it wait for the uploader to free space.
func (st *Stream) spillLocked(seg segment) {
	for st.spoolSz+seg.size > st.opts.MaxSpoolBytes && len(st.spool) > 0 {
		st.stats.SpoolWaits++
		st.spoolCnd.Wait()
	}
	file := filepath.Join(st.opts.SpoolDir, strings.ReplaceAll(seg.name, "/", "_"))
	if err := seg.data.writeFile(file); err != nil {
		// The disk refused it: keep it in memory rather than lose it.
		st.spool = append(st.spool, seg)
	} else {
		st.stats.SpilledBytes += seg.size
		st.spoolSz += seg.size
		seg.data.release()
		st.spool = append(st.spool, segment{name: seg.name, size: seg.size, file: file})
	}
	select {
	case st.kick <- struct{}{}:
	default:
	}
}

// uploader writes sealed segments, oldest spilled first, until the queue is
// closed and the spool is empty, or the stream's context is cancelled.
func (st *Stream) uploader() {
	defer st.wg.Done()
	for {
		seg, ok := st.nextSpilled()
		if !ok {
			select {
			case s, open := <-st.queue:
				if !open {
					if seg, ok = st.nextSpilled(); !ok {
						return
					}
					break
				}
				st.depth.Add(-1)
				seg = s
			case <-st.kick:
				continue
			case <-st.ctx.Done():
				return
			}
		}
		st.deliver(seg)
	}
}

// nextSpilled takes the oldest spooled segment, if any.
func (st *Stream) nextSpilled() (segment, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.spool) == 0 {
		return segment{}, false
	}
	seg := st.spool[0]
	st.spool = st.spool[1:]
	return seg, true
}

// deliver uploads one segment, retrying until it succeeds or the stream's
// context ends; a segment that could not be delivered stays in the spool.
func (st *Stream) deliver(seg segment) {
	src := seg.data.source()
	if seg.file != "" {
		data, err := os.ReadFile(seg.file)
		if err != nil {
			st.giveUp(seg)
			return
		}
		src = bytesSource(data)
	}
	if _, err := st.run.putObject(st.ctx, seg.name, src, false); err != nil {
		if seg.file == "" {
			st.mu.Lock()
			seg = st.spillForever(seg)
			st.mu.Unlock()
		}
		st.giveUp(seg)
		return
	}
	if seg.file == "" {
		seg.data.release()
		return
	}
	_ = os.Remove(seg.file)
	st.mu.Lock()
	st.spoolSz -= seg.size
	st.spoolCnd.Broadcast()
	st.mu.Unlock()
}

// spillForever writes an undeliverable in-memory segment to the spool so it
// survives the process.
func (st *Stream) spillForever(seg segment) segment {
	file := filepath.Join(st.opts.SpoolDir, strings.ReplaceAll(seg.name, "/", "_"))
	if err := seg.data.writeFile(file); err == nil {
		st.stats.SpilledBytes += seg.size
		seg.data.release()
		return segment{name: seg.name, size: seg.size, file: file}
	}
	return seg
}

func (st *Stream) giveUp(seg segment) {
	st.uploadMu.Lock()
	st.failed = append(st.failed, seg)
	st.uploadMu.Unlock()
}

// Close seals what is left, then waits until every segment is stored or ctx
// ends. It returns the names of the stored segments in order, for Compose,
// and an error naming every segment that was not delivered and the spool
// file that holds it.
func (st *Stream) Close(ctx context.Context) ([]string, StreamStats, error) {
	st.mu.Lock()
	if st.cur.Len() > 0 && st.cur.lastByte() != '\n' {
		st.cur.Write([]byte{'\n'}) // a torn last line still ends in a newline
	}
	if st.cur.Len() > 0 {
		st.sealLocked()
	}
	st.closed = true
	st.disarmLocked()
	st.mu.Unlock()
	close(st.queue)

	done := make(chan struct{})
	go func() { st.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		st.cancel()
		<-done
	}
	st.cancel()

	// Whatever is still queued or spooled was not delivered: keep it on disk.
	st.mu.Lock()
	for seg := range st.queue {
		st.spool = append(st.spool, st.spillForever(seg))
	}
	left := append(st.spool, st.failed...)
	st.spool = nil
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
