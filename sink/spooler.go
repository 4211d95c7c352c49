package sink

import "time"

// spoolSegments keeps the spool up to date. It appends the open
// segment's records to its write-ahead file as they arrive (wal.go), and
// makes each sealed segment durable (the rest written, fsynced, renamed)
// before it queues it for upload. It runs until the stream is closed and
// nothing is pending; it never waits on the store. A segment the disk
// refuses is queued from memory (and reported as memory-only if it is not
// delivered).
func (st *Stream) spoolSegments() {
	defer st.spooler.Done()
	var w wal
	defer w.close()
	var sealedBytes int64 // of the segments the spooler has sealed
	spooled := func(n int64) {
		if st.onSpooled != nil {
			st.onSpooled(n)
		}
	}
	for {
		st.mu.Lock()
		for len(st.pending) == 0 && !st.closed && st.walled == st.cur.Len() {
			st.idle = true
			st.wake.Wait()
		}
		st.idle = false
		if len(st.pending) == 0 && st.closed {
			st.mu.Unlock()
			return
		}
		if len(st.pending) == 0 {
			// Records of the open segment not yet in its file: copied
			// here, written outside the lock.
			seq := st.seq + 1
			w.scratch = st.cur.appendFrom(w.scratch[:0], st.walled, walChunk)
			st.walled += len(w.scratch)
			st.mu.Unlock()
			w.appendOpen(seq, spoolPath(st.opts.SpoolDir, st.segmentName(seq)), w.scratch)
			spooled(sealedBytes + int64(w.written))
			// Let the next records gather (see walDelay).
			time.Sleep(walDelay)
			continue
		}
		seg := st.pending[0]
		st.mu.Unlock()

		file := spoolPath(st.opts.SpoolDir, seg.name)
		err := w.seal(seg.seq, file, &seg.data)
		sealedBytes += seg.size
		spooled(sealedBytes)

		st.mu.Lock()
		st.pending = st.pending[1:]
		if err == nil {
			seg.file = file
			// Segments in memory, pending ones included, stay within Queue.
			if st.inMemory+len(st.pending) < st.opts.Queue {
				st.inMemory++
			} else {
				seg.data.release()
				st.stats.SpilledBytes += seg.size
			}
		}
		st.spool = append(st.spool, seg)
		st.stats.MaxQueueDepth = max(st.stats.MaxQueueDepth, int64(len(st.spool)+len(st.pending)))
		st.cond.Broadcast()
		st.mu.Unlock()
	}
}
