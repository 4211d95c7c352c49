package sink

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The open segment's write-ahead file. A stream's records are in memory
// only until its spooler goroutine appends them to the open segment's file
// in the spool (<segment>.open), which it does within walDelay: a process
// killed at any moment (kill -9, a second signal, an evicted pod) leaves
// every record it had written before that in the page cache, which
// survives the process, so Recover finds them. When the segment seals, the spooler
// writes what the file still lacks, cuts a torn last line, fsyncs the file
// and renames it to the segment's name: from then on it also survives a
// crash of the machine. Write never touches the file.

// walDelay is how long the spooler lets the open segment's new records
// gather after an append before it appends again: a kill -9 loses at most
// the records of the last walDelay (and of an append in progress). Write
// wakes the spooler only when it is idle, so a busy stream costs Write
// nothing; a wake-up for every record would cost it a futex call each time
// the machine has an idle core.
const walDelay = time.Millisecond

// openSuffix marks the spool file of a segment still being written.
const openSuffix = ".open"

// walChunk bounds what the spooler copies out of the open segment at once,
// so st.mu is held for a bounded copy however far behind it is.
const walChunk = 1 << 20

// wal is the spooler's file for one segment, open or being sealed. Only
// the spooler goroutine uses it.
type wal struct {
	seq     int      // the segment it belongs to (0: none)
	path    string   // the segment's final spool file; the wal is path+openSuffix
	f       *os.File // nil until the first append, and after a failure
	written int      // bytes of the segment in the file
	failed  bool     // the disk refused an append: the seal writes the segment whole
	scratch []byte   // bytes copied out of the open segment, written outside st.mu
}

// appendOpen writes p, the open segment seq's bytes from offset w.written
// on, to its write-ahead file. A failure is remembered, not returned: the
// records are still in memory, and the seal tries the whole segment again.
func (w *wal) appendOpen(seq int, path string, p []byte) {
	if w.seq != seq {
		w.reset(seq, path)
	}
	if w.failed || len(p) == 0 {
		return
	}
	if w.f == nil {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			w.failed = true
			return
		}
		f, err := os.OpenFile(path+openSuffix, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			w.failed = true
			return
		}
		w.f = f
	}
	if _, err := w.f.Write(p); err != nil {
		w.failed = true
		return
	}
	w.written += len(p)
}

// seal makes segment seq, whose complete bytes are data, durable at path:
// it writes what the write-ahead file lacks (or the whole segment, when
// there is no usable file), cuts what it holds beyond the segment (the
// start of a line the next segment carries), fsyncs and renames it into
// place, and fsyncs the directory. After a nil return the segment survives
// a crash; on an error no file is left at path.
func (w *wal) seal(seq int, path string, data *chunks) error {
	if w.seq != seq || w.failed || w.f == nil {
		w.reset(seq, path)
		return data.writeFileSync(path)
	}
	defer w.reset(0, "")
	f, size := w.f, data.Len()
	var err error
	switch {
	case w.written > size:
		err = f.Truncate(int64(size))
	case w.written < size:
		err = data.writeFrom(f, w.written)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	if err == nil {
		err = os.Rename(path+openSuffix, path)
	}
	if err != nil {
		_ = os.Remove(path + openSuffix)
		return data.writeFileSync(path)
	}
	syncDir(filepath.Dir(path))
	return nil
}

// reset closes the file of an earlier segment (sealed, or abandoned after
// a failure) and starts on segment seq.
func (w *wal) reset(seq int, path string) {
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	if w.failed && w.path != "" {
		_ = os.Remove(w.path + openSuffix)
	}
	w.seq, w.path, w.written, w.failed = seq, path, 0, false
}

// close ends the spooler's use of the file. A file still open here belongs
// to a segment never sealed (the process is giving up): it stays for
// Recover.
func (w *wal) close() {
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
}

// readSpooled reads the spool file name (an object name, as spooled
// under dir) for delivery: a sealed segment whole, and the write-ahead
// file of a segment that was still open when its process died up to its
// last complete line (a record cut by the kill is no record). object is
// the name it is stored under.
func readSpooled(dir, name string) (object string, data []byte, err error) {
	data, err = os.ReadFile(spoolPath(dir, name))
	object, open := strings.CutSuffix(name, openSuffix)
	if open {
		data = data[:bytes.LastIndexByte(data, '\n')+1]
	}
	return object, data, err
}

// syncDir fsyncs a directory, so that a rename in it survives a crash.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
