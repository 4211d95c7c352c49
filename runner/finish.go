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
	errs = append(errs, export.WriteSummaryJSON(&js, s, info), export.WriteSummaryCSV(&csv, s))
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
	}
	if a.store.LocalDir != "" && err == nil {
		err = a.linkLatest(out)
	}
	if err == nil {
		_ = os.RemoveAll(a.spool)
	}
	return out, err
}

// where names a run file for the console: for a directory destination the
// AIPerf-style path of the latest run (see linkLatest), else its location
// in the store.
func (a *artifacts) where(name string) string {
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

// close releases the store; safe to call after finish.
func (a *artifacts) close() {
	if a.logFile != nil {
		a.logFile.Close()
	}
	a.store.Close()
}
