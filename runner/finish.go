package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/sink"
)

// finish delivers the streamed records and composes them into the AIPerf
// files, stores the summary, prints the console report to stdout (always,
// even when storage failed), stores the log, and writes the manifest last.
// ctx is the run's store context (see storeContext): after an interrupt the
// results so far are still stored, until --shutdown-grace ends it; the
// upload wait is bounded by --upload-grace-period as well.
func (a *artifacts) finish(ctx context.Context, s *metrics.Summary, info *export.RunInfo, stdout io.Writer, m *sink.Manifest) (Artifacts, error) {
	ctx, cancel := context.WithTimeout(ctx, a.cfg.UploadGrace)
	defer cancel()
	out := Artifacts{RunID: a.run.ID, Location: a.run.Location()}
	var errs []error
	var delivery []sink.StreamStats
	for i, rs := range append([]*recordStream{a.records, a.raw}, a.extra...) {
		if rs == nil {
			continue
		}
		segs, stats, err := rs.stream.Close(ctx)
		rs.closed = true
		if i < 2 {
			delivery = append(delivery, stats)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, a.run.Compose(ctx, rs.name, segs))
	}
	if len(delivery) > 0 {
		m.Storage.Records = delivery[0]
	}
	var js, csv bytes.Buffer
	writeCSV := export.WriteSummaryCSV
	if info.SchemaVersion == export.Schema14 {
		writeCSV = export.WriteSummaryCSV14
	}
	errs = append(errs, export.WriteSummaryJSON(&js, s, info), writeCSV(&csv, s))
	if info.SchemaVersion == export.Schema14 { // 0.13's GPU telemetry section
		csv.Write(export.AppendGPUTelemetryCSV14(nil, info))
	}
	errs = append(errs, a.run.Put(ctx, a.names.json, js.Bytes()), a.run.Put(ctx, a.names.csv, csv.Bytes()))

	// The summary files are named only when they were stored; the log is
	// stored below, after the console report that names it.
	if a.stored(a.names.json) {
		out.JSON = a.where(a.names.json)
	}
	if a.stored(a.names.csv) {
		out.CSV = a.where(a.names.csv)
	}
	out.Inputs, out.Log = a.where(inputsName), a.where(logName)
	if a.records != nil {
		out.Records = a.where(a.names.records)
	}
	if a.raw != nil {
		out.Raw = a.where(a.names.raw)
	}
	info.CSVPath, info.JSONPath, info.LogPath = out.CSV, out.JSON, out.Log
	info.ShowTraceTiming = a.cfg.ShowTraceTiming
	info.Notes = append(info.Notes, "Run: "+a.run.ID+" in "+a.run.Location())
	if d := storageNote(a.run.Retries(), delivery); d != "" {
		info.Notes = append(info.Notes, d)
	}
	if stdout != nil {
		errs = append(errs, export.WriteConsole(stdout, s, info))
	}

	if a.logFile != nil {
		logPath := a.logFile.Name()
		a.logFile.Close()
		a.logFile = nil
		if data, err := os.ReadFile(logPath); err == nil {
			errs = append(errs, a.run.Put(ctx, logName, data))
		}
	}
	err := errors.Join(errs...)
	if err != nil && m.Status == sink.StatusComplete {
		m.Status, m.Reason = sink.StatusFailed, "storage: "+err.Error()
	}
	m.End = time.Now()
	m.DatasetSHA256 = a.inputsSHA256
	m.Tool.GoVersion = runtime.Version()
	m.Host = sink.HostFacts()
	if merr := a.run.WriteManifest(ctx, m); merr != nil {
		err = errors.Join(err, merr)
		a.manifestLost = true
	}
	// A shard is one writer of a group's run: no "latest run" links.
	if a.store.LocalDir != "" && err == nil && !a.cfg.Sharded() {
		err = a.linkLatest(out)
	}
	if err == nil {
		a.spoolRemoved = sink.RemoveSpool(a.spool) == nil
	}
	return out, err
}

// where names a run file for the console: for a directory destination the
// AIPerf-style path of the latest run (see linkLatest), else its location
// in the store.
func (a *artifacts) where(name string) string {
	if a.store.LocalDir != "" && a.cfg.Sharded() {
		return filepath.Join(a.store.LocalDir, filepath.FromSlash(a.run.Key(name)))
	}
	if a.store.LocalDir != "" {
		return filepath.Join(a.store.LocalDir, filepath.FromSlash(name))
	}
	return a.store.ObjectURL(a.run.Key(name))
}

// stored reports whether the run's object name was stored.
func (a *artifacts) stored(name string) bool {
	for _, o := range a.run.Objects() {
		if o.Name == name {
			return true
		}
	}
	return false
}

// linkLatest makes a directory destination look like AIPerf's: the latest
// run's files also appear at the top of the directory (hard links, or
// copies where links are impossible), while every run stays under runs/.
func (a *artifacts) linkLatest(out Artifacts) error {
	names := []string{a.names.records, a.names.raw, a.names.json, a.names.csv, inputsName, logName}
	for _, o := range a.run.Objects() {
		// Every other file of the run (timeslices, …), but not the record
		// segments or the manifest.
		if !slices.Contains(names, o.Name) && !strings.HasPrefix(o.Name, "records/") && !strings.HasPrefix(o.Name, "telemetry/") && o.Name != sink.ManifestName {
			names = append(names, o.Name)
		}
	}
	for _, name := range names {
		src := filepath.Join(a.store.LocalDir, filepath.FromSlash(a.run.Key(name)))
		if _, err := os.Stat(src); err != nil {
			continue
		}
		dst := filepath.Join(a.store.LocalDir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		_ = os.Remove(dst)
		if err := os.Link(src, dst); err != nil {
			if err := copyFile(src, dst); err != nil {
				return fmt.Errorf("latest %s: %w", name, err)
			}
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

// storageNote summarises record delivery: segments, retries, bytes spilled
// to the local spool, waits for spool space, and the deepest upload queue.
func storageNote(retries int64, stats []sink.StreamStats) string {
	if len(stats) == 0 {
		return ""
	}
	var segments, spilled, waits, depth int64
	for _, s := range stats {
		segments += s.Segments
		spilled += s.SpilledBytes
		waits += s.SpoolWaits
		depth = max(depth, s.MaxQueueDepth)
	}
	return fmt.Sprintf("Record storage: %d segments, %d retries, %d bytes spilled to the local spool, %d waits for spool space, max upload queue %d",
		segments, retries, spilled, waits, depth)
}

// closeLogTimeout bounds close's attempt to store the log of a run that
// failed before finish (and --shutdown-grace, when shorter).
const closeLogTimeout = 2 * time.Second

// close ends the run's storage; it is safe to call after finish. A run that
// failed before its end (finish did not run, or failed) must not leave its
// spool behind: streams finish did not close are closed without waiting on
// the store, which puts their sealed records in the spool; then, if no
// segment waits there, the log is stored when it was not (bounded by
// closeLogTimeout; not at all with --shutdown-grace 0) and the spool is
// removed. A spool holding undelivered segments, or the run whose
// manifest finish could not store, is kept for `aiperf recover`: the error
// names it (and its files, unless finish's error already did).
func (a *artifacts) close() error {
	defer a.store.Close()
	if a.spoolRemoved {
		return nil
	}
	finished := true
	for _, rs := range append([]*recordStream{a.records, a.raw}, a.extra...) {
		if rs == nil || rs.closed {
			continue
		}
		finished = false
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // to the spool only: storing them is recovery's job
		_, _, _ = rs.stream.Close(ctx)
		rs.closed = true
	}
	if a.logFile != nil {
		finished = false
		logPath := a.logFile.Name()
		a.logFile.Close()
		a.logFile = nil
		if files, _ := sink.SpooledSegments(a.spool); len(files) == 0 && a.cfg.ShutdownGrace > 0 && !a.stored(logName) {
			if data, err := os.ReadFile(logPath); err == nil {
				ctx, cancel := context.WithTimeout(context.Background(), min(closeLogTimeout, a.cfg.ShutdownGrace))
				_ = a.run.Put(ctx, logName, data)
				cancel()
			}
		}
	}
	files, err := sink.SpooledSegments(a.spool)
	if err == nil && len(files) == 0 && !a.manifestLost {
		a.spoolRemoved = sink.RemoveSpool(a.spool) == nil
		return nil
	}
	sink.LeaveSpool(a.spool) // for `aiperf recover`, in this process too
	if err == nil && len(files) == 0 {
		return fmt.Errorf("the manifest was not stored; the run's local spool %s is kept for `aiperf recover`, which writes it", a.spool)
	}
	if finished {
		return nil // finish's error named what it could not store
	}
	return fmt.Errorf("%d record segments were not stored; they are kept in the local spool %s for `aiperf recover`:\n  %s",
		len(files), a.spool, strings.Join(files, "\n  "))
}
