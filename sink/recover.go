package sink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gocloud.dev/blob"
)

// RecoveredReason is the reason of the manifest Recover writes for a run
// that has none.
const RecoveredReason = "recovered from the spool of a process that died"

// RecoveryReport says what Recover found under a spool root, run by run.
type RecoveryReport struct {
	Runs []RecoveredRun
}

// RecoveredRun is what Recover did with one spool directory.
type RecoveredRun struct {
	// Spool is the run's spool directory; ID and Store are from its
	// descriptor (empty when it has none).
	Spool, ID, Store string
	// Live is set when the run's process still holds the spool: it was
	// left alone.
	Live bool
	// Skipped says why a directory was not a recoverable spool.
	Skipped string
	// Delivered are the objects stored now (or found already stored);
	// Undelivered are the spool files still holding objects the store did
	// not take.
	Delivered, Undelivered []string
	// Manifest is set when Recover wrote the run's manifest (status
	// interrupted); a run that had one keeps it.
	Manifest bool
	// Removed is set when the spool directory was removed: everything in
	// it is stored.
	Removed bool
	// Err is why the run is not fully recovered.
	Err error
}

// Recover finishes the uploads of dead runs. spoolDir is a spool root (the
// directory holding one spool per run, like a runner's --spool-dir) or one
// run's spool. For each spool that has a descriptor and whose process is
// gone (its lock is free), it stores every leftover segment at its object
// name in that run's own place in its store (create-only; an object already
// there counts), stores the spooled log as logs/aiperf.log if the run has
// none, writes a manifest with status interrupted (RecoveredReason) listing
// the run's objects when the run has no manifest, and removes the spool once
// everything is stored. A directory named by a run id that holds only a log
// and no descriptor is removed: nothing says which store the log belongs
// to, and it holds no records. Spools of live processes are left alone. Stores are
// opened with mux (nil: gocloud's default). Each upload is retried until ctx
// ends. The error joins every run's failure; the report says what was done.
func Recover(ctx context.Context, spoolDir string, mux *blob.URLMux) (RecoveryReport, error) {
	var rep RecoveryReport
	dirs := []string{spoolDir}
	if _, err := os.Stat(filepath.Join(spoolDir, spoolDescriptorName)); err != nil {
		entries, err := os.ReadDir(spoolDir)
		if errors.Is(err, fs.ErrNotExist) {
			return rep, nil
		}
		if err != nil {
			return rep, fmt.Errorf("recover: %w", err)
		}
		dirs = dirs[:0]
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(spoolDir, e.Name()))
			}
		}
	}
	var errs []error
	for _, dir := range dirs {
		rr := recoverSpool(ctx, dir, mux)
		if rr.Err != nil {
			errs = append(errs, fmt.Errorf("run %s (%s): %w", rr.ID, rr.Spool, rr.Err))
		}
		rep.Runs = append(rep.Runs, rr)
	}
	return rep, errors.Join(errs...)
}

// recoverSpool recovers one run's spool, holding its lock exclusively so
// that neither a live process nor a second Recover shares it.
func recoverSpool(ctx context.Context, dir string, mux *blob.URLMux) (rr RecoveredRun) {
	rr.Spool = dir
	desc, err := readSpoolDescriptor(dir)
	if errors.Is(err, fs.ErrNotExist) {
		rr.Skipped = "no " + spoolDescriptorName + ": not a run's spool, or its run has not started a stream"
		if logOnlySpool(dir) {
			rr.removeLogOnly(dir)
		}
		return rr
	}
	if err != nil {
		rr.Err = err
		return rr
	}
	rr.ID, rr.Store = desc.RunID, desc.Store
	lock, err := os.OpenFile(filepath.Join(dir, spoolLockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		rr.Err = fmt.Errorf("lock: %w", err)
		return rr
	}
	defer lock.Close()
	if ok, err := tryLockExclusive(lock); err != nil {
		rr.Err = fmt.Errorf("lock: %w", err)
		return rr
	} else if !ok {
		rr.Live = true
		return rr
	}
	if desc.RunID == "" || desc.Store == "" {
		rr.Err = errors.New("the descriptor names no run or store")
		return rr
	}
	store, err := Open(ctx, desc.Store, mux)
	if err != nil {
		rr.Err = err
		return rr
	}
	defer store.Close()
	run := store.NewRun(desc.RunID)
	rr.Err = rr.deliver(ctx, run, dir)
	if rr.Err != nil {
		return rr
	}
	if err := os.RemoveAll(dir); err != nil {
		rr.Err = fmt.Errorf("remove spool: %w", err)
		return rr
	}
	rr.Removed = true
	return rr
}

// logOnlySpool reports whether dir is a run's spool (named by its run id)
// that holds nothing but the runner's log (and perhaps its lock and an empty
// objects directory): what a process that died before it wrote a descriptor
// leaves, or a run of a version that wrote descriptors only with its first
// stream (--export-level summary).
func logOnlySpool(dir string) bool {
	if runStart(filepath.Base(dir)).IsZero() {
		return false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	hasLog := false
	for _, e := range entries {
		switch e.Name() {
		case SpoolLogName:
			hasLog = !e.IsDir()
		case spoolLockName:
		case spoolObjectsDir:
			if files, err := SpooledSegments(dir); err != nil || len(files) > 0 {
				return false
			}
		default:
			return false
		}
	}
	return hasLog
}

// removeLogOnly removes a spool that holds only a log: with no descriptor,
// nothing says which store the log belongs to, and it has no records. A
// spool whose lock a live process holds is left alone.
func (rr *RecoveredRun) removeLogOnly(dir string) {
	rr.ID = filepath.Base(dir)
	if lock, err := os.OpenFile(filepath.Join(dir, spoolLockName), os.O_RDWR, 0); err == nil {
		defer lock.Close()
		if ok, err := tryLockExclusive(lock); err != nil || !ok {
			rr.Live = err == nil
			return
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		rr.Err = fmt.Errorf("remove spool: %w", err)
		return
	}
	rr.Skipped = "only a log, and no " + spoolDescriptorName + " naming its store: removed"
	rr.Removed = true
}

// deliver stores the spool's segments and log and, when the run has no
// manifest, writes one.
func (rr *RecoveredRun) deliver(ctx context.Context, run *Run, dir string) error {
	files, err := spooledObjects(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range files {
		file := spoolPath(dir, name)
		name, data, err := readSpooled(dir, name)
		if err == nil && len(data) == 0 {
			_ = os.Remove(file) // an open segment with no complete record
			continue
		}
		if err == nil {
			_, err = run.putObject(ctx, name, bytesSource(data), false)
		}
		if err != nil {
			rr.Undelivered = append(rr.Undelivered, file)
			errs = append(errs, err)
			continue
		}
		rr.Delivered = append(rr.Delivered, name)
		_ = os.Remove(file)
	}
	if err := rr.deliverLog(ctx, run, dir); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return rr.writeManifest(ctx, run, dir)
}

// spooledObjects lists the object names of the spool's segment files, in
// name order. Temporary files are torn writes of a segment that was never
// queued (its bytes are still the open segment's): they are removed.
func spooledObjects(dir string) ([]string, error) {
	root := filepath.Join(dir, spoolObjectsDir)
	var names []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasSuffix(p, ".tmp") {
			return os.Remove(p)
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		names = append(names, filepath.ToSlash(rel))
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("spool: %w", err)
	}
	return names, nil
}

// deliverLog stores the spool's log as the run's logs/aiperf.log unless the
// run already has one (the dead process may have stored an earlier copy).
func (rr *RecoveredRun) deliverLog(ctx context.Context, run *Run, dir string) error {
	const name = "logs/aiperf.log"
	data, err := os.ReadFile(filepath.Join(dir, SpoolLogName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("spooled log: %w", err)
	}
	if ok, err := run.store.Bucket.Exists(ctx, run.Key(name)); err != nil {
		return fmt.Errorf("spooled log: %w", err)
	} else if ok {
		return nil
	}
	if err := run.Put(ctx, name, data); err != nil {
		rr.Undelivered = append(rr.Undelivered, filepath.Join(dir, SpoolLogName))
		return err
	}
	rr.Delivered = append(rr.Delivered, name)
	return nil
}

// writeManifest writes an interrupted manifest listing every object of the
// run, unless the run has a manifest already.
func (rr *RecoveredRun) writeManifest(ctx context.Context, run *Run, dir string) error {
	if ok, err := run.store.Bucket.Exists(ctx, run.Key(ManifestName)); err != nil {
		return fmt.Errorf("manifest: %w", err)
	} else if ok {
		return nil
	}
	it := run.store.Bucket.List(&blob.ListOptions{Prefix: run.prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("list run: %w", err)
		}
		if !obj.IsDir {
			run.record(Object{Name: strings.TrimPrefix(obj.Key, run.prefix), Size: obj.Size})
		}
	}
	m := &Manifest{Status: StatusInterrupted, Reason: RecoveredReason, End: time.Now().UTC(),
		Tool: Tool{Name: "aiperf"}}
	if desc, err := readSpoolDescriptor(dir); err == nil {
		m.Start, m.Host = desc.Start, desc.Host
	}
	if err := run.WriteManifest(ctx, m); err != nil {
		return err
	}
	rr.Manifest = true
	return nil
}
