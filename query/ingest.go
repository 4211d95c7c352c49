package query

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/aiperf-go/aiperf/sink"
)

// IngestStats reports what an ingest did.
type IngestStats struct {
	// RunsSeen counts the runs found; RunsLoaded those (re)loaded because
	// they were new or their content changed; RunsSkipped those already
	// loaded unchanged; RunsFailed those that could not be loaded.
	RunsSeen, RunsLoaded, RunsSkipped, RunsFailed int
	// Records counts the request rows loaded.
	Records int
	// Duration is the wall time of the ingest.
	Duration time.Duration
}

// Ingest loads every run of store that is new or changed since it was last
// loaded, and skips the others, so a second ingest of the same store loads
// nothing. A run is compared by its content_key: its manifest, or for a run
// without one (interrupted) the objects stored so far. A changed run's rows
// are replaced in one transaction. Interrupted runs load with their status
// and the records of their segments. source is recorded in runs.source (""
// records store.Location).
//
// A run group (runs/<group>/shards/<i>/, one benchmark run by N shards)
// loads as one run whose id is the group id: every shard's records, the
// run_metrics recomputed over all of them as if one machine had run it,
// one run_shards row per shard, and status partial when a shard is
// missing, failed or interrupted (see group.go and docs/schema.md).
//
// A run that cannot be read or loaded is counted in RunsFailed and
// skipped, and so is one whose manifest is unreadable; the returned error
// joins a *RunError for each such run (the other runs are loaded). A store
// that cannot be listed is an error of its own. A cancelled ctx stops the
// ingest between runs and rolls back the run being loaded. The store stays
// owned by the caller.
func (db *DB) Ingest(ctx context.Context, source string, store *sink.Store) (st IngestStats, err error) {
	began := time.Now()
	defer func() { st.Duration = time.Since(began) }()
	if source == "" {
		source = store.Location
	}
	known, err := db.contentKeys(ctx)
	if err != nil {
		return st, err
	}
	runs, errs, err := listRuns(ctx, store)
	if err != nil {
		return st, err
	}
	st.RunsSeen, st.RunsFailed = len(errs), len(errs)
	for _, rs := range runs {
		if err := ctx.Err(); err != nil {
			return st, errors.Join(append(errs, err)...)
		}
		st.RunsSeen++
		sr, err := inspectRun(ctx, store, rs)
		if err == nil && known[rs.ID] == sr.key {
			st.RunsSkipped++
			continue
		}
		if err == nil {
			var n int64
			if sr.group {
				n, err = db.loadStoredGroup(ctx, source, store, sr)
			} else {
				n, err = db.loadStoredRun(ctx, source, store, sr)
			}
			st.Records += int(n)
		}
		if err != nil {
			st.RunsFailed++
			errs = append(errs, &RunError{Run: rs.ID, Err: err})
			continue
		}
		st.RunsLoaded++
	}
	return st, errors.Join(errs...)
}

// contentKeys returns the content_key of every loaded run.
func (db *DB) contentKeys(ctx context.Context) (map[string]string, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT run_id, content_key FROM runs`)
	if err != nil {
		return nil, fmt.Errorf("loaded runs: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, key string
		if err := rows.Scan(&id, &key); err != nil {
			return nil, fmt.Errorf("loaded runs: %w", err)
		}
		out[id] = key
	}
	return out, rows.Err()
}

// storedRun is a run of a store as found: its manifest (nil when
// interrupted or a run group), its objects and sizes, and its content key.
type storedRun struct {
	sink.RunSummary
	manifestJSON []byte
	objects      map[string]int64
	key          string
	// group reports a run group: no manifest of its own, its shards under
	// shards/ (see group.go).
	group bool
}

// inspectRun lists what a run holds and derives its content key: the
// manifest's hash when it has one (a manifest is written once, last), else
// a hash of its object names and sizes, which grows as segments arrive.
func inspectRun(ctx context.Context, store *sink.Store, rs sink.RunSummary) (*storedRun, error) {
	sr := &storedRun{RunSummary: rs, objects: map[string]int64{}}
	h := sha256.New()
	if rs.Manifest != nil {
		b, err := json.Marshal(rs.Manifest)
		if err != nil {
			return nil, fmt.Errorf("manifest: %w", err)
		}
		sr.manifestJSON = b
		for _, o := range rs.Manifest.Objects {
			sr.objects[o.Name] = o.Size
		}
		h.Write(b)
		sr.key = "manifest:" + hex.EncodeToString(h.Sum(nil))
		return sr, nil
	}
	prefix := sink.RunsPrefix + rs.ID + "/"
	it := store.Bucket.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("list: %w", err)
		}
		name := strings.TrimPrefix(obj.Key, prefix)
		sr.objects[name] = obj.Size
	}
	names := make([]string, 0, len(sr.objects))
	for n := range sr.objects {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, sr.objects[n])
	}
	sr.key = "partial:" + hex.EncodeToString(h.Sum(nil))
	if sr.group = isGroup(sr.objects); sr.group {
		// A group changes as its shards' objects arrive: the same hash.
		sr.key = "group:" + strings.TrimPrefix(sr.key, "partial:")
	}
	return sr, nil
}

// loadStoredRun reads a stored run's summary and records and loads them.
func (db *DB) loadStoredRun(ctx context.Context, source string, store *sink.Store, sr *storedRun) (int64, error) {
	p := &loadPlan{run: runRow{ID: sr.ID, Source: source, Status: sr.Status, ContentKey: sr.key}}
	r := &p.run
	if m := sr.Manifest; m != nil {
		r.Reason, r.Start, r.End = m.Reason, m.Start, m.End
		r.ToolName, r.ToolVersion, r.ToolCommit = m.Tool.Name, m.Tool.Version, m.Tool.Commit
		r.DatasetSHA256, r.Hostname, r.CPUs, r.Kernel = m.DatasetSHA256, m.Host.Hostname, m.Host.CPUs, m.Host.Kernel
		r.Manifest = sr.manifestJSON
		if len(m.Labels) > 0 {
			r.Labels, _ = json.Marshal(m.Labels) // a map of strings always marshals
		}
		if m.Config != nil {
			if b, err := json.Marshal(m.Config); err == nil {
				r.InputConfig = b
			}
		}
	} else if t, err := time.Parse("20060102T150405Z", strings.SplitN(sr.ID, "-", 2)[0]); err == nil {
		r.Start = t // run ids begin with their UTC start time
	}
	r.Config, _ = parseConfig(r.InputConfig) // facts are a convenience: the JSON itself is kept
	recordsName, summaryName := "profile_export.jsonl", "profile_export_aiperf.json"
	if pre := r.Config.ExportPrefix; pre != "" {
		recordsName, summaryName = pre+".jsonl", pre+".json"
	}
	key := func(name string) string { return sink.RunsPrefix + sr.ID + "/" + name }

	if _, ok := sr.objects[summaryName]; ok {
		data, err := store.Bucket.ReadAll(ctx, key(summaryName))
		if err != nil {
			return 0, fmt.Errorf("read summary: %w", err)
		}
		s, err := parseSummary(data)
		if err != nil {
			return 0, err
		}
		p.metrics, r.BenchmarkID = s.Metrics, s.BenchmarkID
		if r.InputConfig == nil && s.InputConfig != nil {
			r.InputConfig = s.InputConfig
			r.Config, _ = parseConfig(r.InputConfig)
		}
	}
	if r.Config.Streaming == nil {
		r.Config.Streaming = streamedMetrics(p.metrics)
	}
	if r.Config.Model() == "" {
		if _, ok := sr.objects["inputs.json"]; ok {
			if rd, err := store.Bucket.NewReader(ctx, key("inputs.json"), nil); err == nil {
				model, stream := sniffPayload(rd)
				rd.Close()
				if model != "" {
					r.Config.Models = []string{model}
				}
				if r.Config.Streaming == nil {
					r.Config.Streaming = stream
				}
			}
		}
	}

	if parts := pickObject(sr.objects, []string{recordsName}, "records"); len(parts) > 0 {
		files, cleanup, err := localFiles(ctx, store, sr.ID, parts)
		defer cleanup()
		if err != nil {
			return 0, err
		}
		p.records = files
	}
	cleanupTelemetry, err := planStoredTelemetry(ctx, store, sr, p)
	defer cleanupTelemetry()
	if err != nil {
		return 0, err
	}
	return db.replaceRun(ctx, p)
}

// pickObject returns the first of names that objects holds, or else the
// segments under dir (objects named dir/*.jsonl) in name order, which is
// the order they were written in.
func pickObject(objects map[string]int64, names []string, dir string) []string {
	for _, n := range names {
		if _, ok := objects[n]; ok {
			return []string{n}
		}
	}
	var parts []string
	for n := range objects {
		if path.Dir(n) == dir && strings.HasSuffix(n, ".jsonl") {
			parts = append(parts, n)
		}
	}
	sort.Strings(parts)
	return parts
}

// localFiles returns local paths holding the run's objects names, in order:
// the objects themselves in a directory store, else one temporary file they
// are streamed into. cleanup removes what was made; call it in every case.
func localFiles(ctx context.Context, store *sink.Store, id string, names []string) (files []string, cleanup func(), err error) {
	cleanup = func() {}
	if store.LocalDir != "" {
		for _, n := range names {
			files = append(files, filepath.Join(store.LocalDir, "runs", id, filepath.FromSlash(n)))
		}
		return files, cleanup, nil
	}
	f, err := os.CreateTemp("", "aiperf-query-*.jsonl")
	if err != nil {
		return nil, cleanup, fmt.Errorf("stage objects: %w", err)
	}
	cleanup = func() { f.Close(); os.Remove(f.Name()) }
	for _, n := range names {
		rd, err := store.Bucket.NewReader(ctx, sink.RunsPrefix+id+"/"+n, nil)
		if gcerrors.Code(err) == gcerrors.NotFound {
			continue // a segment composed away since listing: the run changed
		}
		if err != nil {
			return nil, cleanup, fmt.Errorf("read %s: %w", n, err)
		}
		_, err = io.Copy(f, rd)
		rd.Close()
		if err != nil {
			return nil, cleanup, fmt.Errorf("stage %s: %w", n, err)
		}
	}
	return []string{f.Name()}, cleanup, nil
}
