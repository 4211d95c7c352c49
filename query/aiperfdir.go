package query

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// AIPerf artifact file names read by IngestAIPerfDir.
const (
	summaryFile    = "profile_export_aiperf.json"
	recordsFile    = "profile_export.jsonl"
	recordsCSVFile = "profile_export_records.csv"
)

// runIDPattern matches sink.NewRunID's ids: 20261122T035800Z-1a2b3c4d.
var runIDPattern = regexp.MustCompile(`^\d{8}T\d{6}Z-[0-9a-f]{8}$`)

// IngestAIPerfDir walks the directory tree under dir and loads every
// directory holding profile_export_aiperf.json, as NVIDIA's AIPerf writes
// them (no manifest), that is new or changed. Its run_id is "aiperf-" plus
// the summary's benchmark_id (or a hash of the directory's path when it has
// none), its source the directory, its records profile_export.jsonl, or
// else profile_export_records.csv, when present. Its status is complete,
// interrupted when the summary says was_cancelled, or failed when no
// request succeeded.
//
// Stores of aiperf-go (a directory with runs/<run_id>/ inside) are skipped,
// including the copy of their latest run at their top: load them with
// Ingest. Errors are handled as in Ingest; an unreadable dir is an error.
func (db *DB) IngestAIPerfDir(ctx context.Context, dir string) (st IngestStats, err error) {
	began := time.Now()
	defer func() { st.Duration = time.Since(began) }()
	root, err := filepath.Abs(dir)
	if err != nil {
		return st, fmt.Errorf("ingest %s: %w", dir, err)
	}
	var dirs []string
	var errs []error
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			errs = append(errs, err)
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if isRunStore(p) || isStoredRun(p) {
			return filepath.SkipDir
		}
		if fileExists(filepath.Join(p, summaryFile)) {
			dirs = append(dirs, p)
		}
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("ingest %s: %w", dir, err)
	}
	known, err := db.contentKeys(ctx)
	if err != nil {
		return st, err
	}
	for _, d := range dirs {
		if err := ctx.Err(); err != nil {
			return st, errors.Join(append(errs, err)...)
		}
		st.RunsSeen++
		p, err := planAIPerfDir(d)
		if err == nil && known[p.run.ID] == p.run.ContentKey {
			st.RunsSkipped++
			continue
		}
		if err == nil {
			var n int64
			n, err = db.replaceRun(ctx, p)
			st.Records += int(n)
		}
		if err != nil {
			st.RunsFailed++
			errs = append(errs, fmt.Errorf("aiperf dir %s: %w", d, err))
			continue
		}
		st.RunsLoaded++
	}
	return st, errors.Join(errs...)
}

// planAIPerfDir reads an AIPerf artifact directory's summary and finds its
// records.
func planAIPerfDir(dir string) (*loadPlan, error) {
	data, err := os.ReadFile(filepath.Join(dir, summaryFile))
	if err != nil {
		return nil, err
	}
	s, err := parseSummary(data)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	h.Write(data)
	p := &loadPlan{metrics: s.Metrics}
	for _, name := range []string{recordsFile, recordsCSVFile} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		fmt.Fprintf(h, "\x00%s\x00%d\x00%d", name, fi.Size(), fi.ModTime().UnixNano())
		if name == recordsFile {
			p.records = []string{filepath.Join(dir, name)}
		} else {
			p.csv = filepath.Join(dir, name)
		}
		break
	}
	// AIPerf writes its start and end in local time without a zone: the
	// records' wall-clock request_start_ns (or the summary's
	// min_request_timestamp, before 0.8), or else the time the summary
	// was written, tells which zone.
	wallNS := int64(metricAvg(s.Metrics, "min_request_timestamp"))
	if len(p.records) > 0 {
		if ns := firstRequestWallNS(p.records[0]); ns > 0 {
			wallNS = ns
		}
	}
	var writtenNS int64
	if fi, err := os.Stat(filepath.Join(dir, summaryFile)); err == nil {
		writtenNS = fi.ModTime().UnixNano()
	}
	start, end := localTimes(s, wallNS, writtenNS)
	id := s.BenchmarkID
	if id == "" {
		sum := sha256.Sum256([]byte(dir))
		id = hex.EncodeToString(sum[:8])
	}
	p.run = runRow{
		ID: "aiperf-" + id, Source: dir, Status: "complete",
		Start: start, End: end,
		ToolName: "aiperf", ToolVersion: s.AIPerfVersion, BenchmarkID: s.BenchmarkID,
		InputConfig: s.InputConfig,
		ContentKey:  "aiperf:" + hex.EncodeToString(h.Sum(nil)),
	}
	p.run.Config, _ = parseConfig(s.InputConfig) // facts are a convenience: the JSON itself is kept
	if p.run.Config.Streaming == nil {
		p.run.Config.Streaming = streamedMetrics(s.Metrics)
	}
	switch ok, errs := metricAvg(s.Metrics, "request_count"), metricAvg(s.Metrics, "error_request_count"); {
	case s.WasCancelled:
		p.run.Status = "interrupted"
	case ok == 0 && errs > 0:
		p.run.Status, p.run.Reason = "failed", "every request failed"
	}
	if err := planDirTelemetry(dir, p); err != nil {
		return nil, err
	}
	return p, nil
}

// streamedMetrics says whether a summary is a streaming run's: only those
// have time_to_first_token. It is nil when there are no metrics at all.
func streamedMetrics(ms []metricRow) *bool {
	if len(ms) == 0 {
		return nil
	}
	b := false
	for i := range ms {
		b = b || ms[i].Tag == "time_to_first_token"
	}
	return &b
}

// metricAvg returns the avg of tag, or 0.
func metricAvg(ms []metricRow, tag string) float64 {
	for i := range ms {
		if ms[i].Tag == tag {
			if v, ok := ms[i].Stats[0].(float64); ok {
				return v
			}
		}
	}
	return 0
}

// isRunStore reports whether dir is an aiperf-go store: it has runs/ with
// a run of ours inside.
func isRunStore(dir string) bool {
	entries, err := os.ReadDir(filepath.Join(dir, "runs"))
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.IsDir() && isStoredRun(filepath.Join(dir, "runs", e.Name())) {
			return true
		}
	}
	return false
}

// isStoredRun reports whether dir is runs/<run_id>/ of an aiperf-go store,
// or a run group's runs/<group>/ (its shards' directories hold AIPerf
// files too, but they are parts of one run: Ingest loads them).
func isStoredRun(dir string) bool {
	if filepath.Base(filepath.Dir(dir)) != "runs" {
		return false
	}
	if fi, err := os.Stat(filepath.Join(dir, "shards")); err == nil && fi.IsDir() {
		return true
	}
	return runIDPattern.MatchString(filepath.Base(dir)) || fileExists(filepath.Join(dir, "manifest.json"))
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
