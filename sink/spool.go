package sink

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// The spool is a run's local directory (StreamOptions.SpoolDir) that holds
// every sealed segment until the store has acknowledged it, so that a
// process killed at any moment leaves on disk whatever the store does not
// have. It holds:
//
//	spool.json            the descriptor: where the run is stored (SpoolDescriptor)
//	lock                  flock'ed (shared) by the live process for its whole life
//	objects/<name>        each sealed segment not yet acknowledged, at its object name
//	aiperf.log            the runner's log, when it writes one there
//
// Recover finds the spools of dead processes by their descriptor and a lock
// that nobody holds, and finishes their uploads.

// Spool file names.
const (
	spoolDescriptorName = "spool.json"
	spoolLockName       = "lock"
	spoolObjectsDir     = "objects"
	// SpoolLogName is the run log a runner may keep in its spool; Recover
	// stores it as the run's logs/aiperf.log when the run has none.
	SpoolLogName = "aiperf.log"
)

// SpoolDescriptor says where a spool's segments belong. It is written when
// the run opens its spool (OpenSpool) or its first stream starts, and
// rewritten as further streams start.
type SpoolDescriptor struct {
	SchemaVersion string `json:"schema_version"`
	// Store is the destination as given (a directory path or a store URL
	// without credentials: gocloud takes those from the environment).
	Store string    `json:"store"`
	RunID string    `json:"run_id"`
	Start time.Time `json:"start_time"`
	PID   int       `json:"pid"`
	Host  Host      `json:"host"`
	// Streams are the record streams of the run: the key prefix of their
	// segments and, when known, the object their segments compose into.
	Streams []SpoolStream `json:"streams"`
}

// SpoolStream is one stream of a spooled run.
type SpoolStream struct {
	Dir     string `json:"dir"`
	Compose string `json:"compose,omitempty"`
}

// spoolLocks holds, per spool directory, the lock file this process keeps
// open (and shared-locked) until it exits: a spool is live exactly as long
// as its process is, also between the end of its streams and the end of the
// run. spoolMu also serialises the descriptor's rewrites.
var (
	spoolMu    sync.Mutex
	spoolLocks = map[string]*os.File{}
)

// joinSpool locks dir for this process (once) and adds the stream to its
// descriptor. The lock is taken before the descriptor is written, so a spool
// with a descriptor and a free lock is always a dead process's.
func (r *Run) joinSpool(dir string, s SpoolStream) error {
	spoolMu.Lock()
	defer spoolMu.Unlock()
	lockPath := filepath.Join(dir, spoolLockName)
	if f, ok := spoolLocks[dir]; ok && !sameFile(f, lockPath) {
		// The spool was removed (a finished run) and is used again.
		f.Close()
		delete(spoolLocks, dir)
	}
	if _, ok := spoolLocks[dir]; !ok {
		f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("spool lock: %w", err)
		}
		if err := lockShared(f); err != nil {
			f.Close()
			return fmt.Errorf("spool lock: %w", err)
		}
		spoolLocks[dir] = f
	}
	d, err := readSpoolDescriptor(dir)
	if errors.Is(err, os.ErrNotExist) {
		d = &SpoolDescriptor{SchemaVersion: ManifestSchemaVersion, Store: redactURL(r.store.Location),
			RunID: r.ID, Start: runStart(r.ID), PID: os.Getpid(), Host: HostFacts()}
	} else if err != nil {
		return err
	}
	if s.Dir != "" && !slices.ContainsFunc(d.Streams, func(x SpoolStream) bool { return x.Dir == s.Dir }) {
		d.Streams = append(d.Streams, s)
	}
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("spool descriptor: %w", err)
	}
	if err := writeFileSync(filepath.Join(dir, spoolDescriptorName), append(data, '\n')); err != nil {
		return fmt.Errorf("spool descriptor: %w", err)
	}
	return nil
}

// OpenSpool makes dir the run's spool before any stream starts: it locks
// dir for this process and writes the descriptor, naming no stream yet. A
// run that never starts a stream (--export-level summary) still leaves a
// spool that Recover can finish (its log, an interrupted manifest) when its
// process dies. Streams given dir as their SpoolDir join it later.
func (r *Run) OpenSpool(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return r.joinSpool(dir, SpoolStream{})
}

// SpooledSegments lists the spool files in dir that still hold segments the
// store has not acknowledged, in name order; none when the spool does not
// exist. Temporary files (a write that never finished) are not segments.
func SpooledSegments(dir string) ([]string, error) {
	root := filepath.Join(dir, spoolObjectsDir)
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".tmp") {
			return err
		}
		files = append(files, p)
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return files, fmt.Errorf("spool: %w", err)
	}
	return files, nil
}

// RemoveSpool gives up this process's lock on the spool dir and removes it:
// for a run that ends with nothing in its spool left to deliver.
func RemoveSpool(dir string) error {
	releaseSpool(dir)
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove spool: %w", err)
	}
	return nil
}

// sameFile reports whether the open file f is still the file at path.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// readSpoolDescriptor reads dir's spool.json.
func readSpoolDescriptor(dir string) (*SpoolDescriptor, error) {
	data, err := os.ReadFile(filepath.Join(dir, spoolDescriptorName))
	if err != nil {
		return nil, err
	}
	var d SpoolDescriptor
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("spool descriptor %s: %w", dir, err)
	}
	return &d, nil
}

// runStart reads the start time from a run id (zero if it has none).
func runStart(id string) time.Time {
	if len(id) < 16 {
		return time.Time{}
	}
	t, _ := time.Parse("20060102T150405Z", id[:16])
	return t
}

// redactURL drops user information from a store URL; credentials never
// belong in a file, even where a URL carried them.
func redactURL(loc string) string {
	if !IsURL(loc) {
		return loc
	}
	u, err := url.Parse(loc)
	if err != nil || u.User == nil {
		return loc
	}
	u.User = nil
	return u.String()
}

// spoolPath is the spool file of the segment name.
func spoolPath(dir, name string) string {
	return filepath.Join(dir, spoolObjectsDir, filepath.FromSlash(name))
}

// writeFileSync writes data to path durably: a temporary file, fsynced,
// renamed into place, and the directory fsynced, so that after a crash path
// is either absent or whole.
func writeFileSync(path string, data []byte) error {
	return writeSync(path, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// writeSync is writeFileSync with the content written by write.
func writeSync(path string, write func(*os.File) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// LeaveSpool gives up this process's lock on a spool it leaves behind for
// Recover (a run that ends with something undelivered), so that a later
// recovery in the same process, or another, may take it.
func LeaveSpool(dir string) { releaseSpool(dir) }

// releaseSpool gives up this process's lock on a spool, as its death would
// (tests use it to stand in for a killed process), or before the spool is
// removed.
func releaseSpool(dir string) {
	spoolMu.Lock()
	defer spoolMu.Unlock()
	if f, ok := spoolLocks[dir]; ok {
		f.Close()
		delete(spoolLocks, dir)
	}
}

// DefaultSpoolRoot is the spool root of runs given no --spool-dir: one
// directory per run under it.
func DefaultSpoolRoot() string { return filepath.Join(os.TempDir(), "aiperf-spool") }
