package query

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/sink"
)

// groupPlan is what a run group's load needs beyond a run's: its shards
// and the local record files of each.
type groupPlan struct {
	shards []*storedShard
	// files[i] are the record files of shards[i], in order; nil for a
	// shard without records.
	files [][]string
	// summary is the group's summary recomputed over its records, set
	// by the load.
	summary *metrics.Summary
	// win is the layout and observation window of the shards' runs.
	win window
}

// groupWindow returns the shards' layout (1.4 when any shard's manifest
// says so) and the earliest profiling start their manifests give.
func groupWindow(shards []*storedShard) window {
	var w window
	for _, sh := range shards {
		if sh.manifest == nil {
			continue
		}
		m := sh.manifest.Manifest
		if m.ArtifactSchema == export.Schema14 {
			w.schema14 = true
		}
		if s := m.ProfilingStartNS; s > 0 && (w.profilingStartNS == 0 || s < w.profilingStartNS) {
			w.profilingStartNS = s
		}
	}
	return w
}

// shardRecordFiles returns the record objects of a shard (relative to its
// prefix): its profile_export.jsonl, named by its own export prefix, or
// else its record segments.
func shardRecordFiles(sh *storedShard) []string {
	name := recordsFile
	if sh.manifest != nil && sh.manifest.Config != nil {
		if b, err := json.Marshal(sh.manifest.Config); err == nil {
			if c, err := parseConfig(b); err == nil && c.ExportPrefix != "" {
				name = c.ExportPrefix + ".jsonl"
			}
		}
	}
	return pickObject(sh.objects, []string{name}, "records")
}

// loadStoredGroup reads a stored run group's shards and records and loads
// them as one run whose id is the group id.
func (db *DB) loadStoredGroup(ctx context.Context, source string, store *sink.Store, sr *storedRun) (int64, error) {
	p := &loadPlan{run: runRow{ID: sr.ID, Source: source, ContentKey: sr.key}}
	cleanup, err := planGroup(ctx, store, sr, p)
	defer cleanup()
	if err != nil {
		return 0, err
	}
	return db.replaceRun(ctx, p)
}

// planGroup fills p with a run group's row and shards and stages the
// records of every shard that has any, a shard without a manifest
// included (its segments, like an interrupted run's). cleanup removes
// what was staged; call it in every case.
func planGroup(ctx context.Context, store *sink.Store, sr *storedRun, p *loadPlan) (cleanup func(), err error) {
	var cleanups []func()
	cleanup = func() {
		for _, c := range cleanups {
			c()
		}
	}
	shards, err := readShards(ctx, store, sr)
	if err != nil {
		return cleanup, err
	}
	groupRun(&p.run, shards)
	p.run.Config, _ = parseConfig(p.run.InputConfig) // facts are a convenience: the JSON itself is kept
	g := &groupPlan{shards: shards, files: make([][]string, len(shards)), win: groupWindow(shards)}
	for i, sh := range shards {
		parts := shardRecordFiles(sh)
		if len(parts) == 0 {
			continue
		}
		files, c, err := localFiles(ctx, store, shardPrefix(sr.ID, sh.index), parts)
		cleanups = append(cleanups, c)
		if err != nil {
			return cleanup, fmt.Errorf("shard %d: %w", sh.index, err)
		}
		g.files[i] = files
	}
	p.group = g
	return cleanup, nil
}

// insertGroup loads a group's records shard by shard, then its run_metrics
// recomputed over all of them (summarizeRecords) and its run_shards rows.
// It returns the number of records.
func (db *DB) insertGroup(ctx context.Context, tx *sql.Tx, id string, g *groupPlan) (int64, error) {
	var total int64
	for i, sh := range g.shards {
		if len(g.files[i]) == 0 {
			continue
		}
		n, err := db.insertRecords(ctx, tx, id, g.files[i])
		if err != nil {
			return 0, fmt.Errorf("shard %d: %w", sh.index, err)
		}
		sh.records = n
		total += n
	}
	ms, summary, err := recomputeMetrics(ctx, tx, id, g.win)
	if err != nil {
		return 0, err
	}
	if err := insertMetrics(ctx, tx, id, ms); err != nil {
		return 0, err
	}
	g.summary = summary
	for _, sh := range g.shards {
		start, end, skew := sh.facts()
		var host, reason string
		if sh.manifest != nil {
			host, reason = sh.manifest.Host.Hostname, sh.manifest.Reason
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO run_shards (run_id, shard_index, shard_count, status, missing,
			records, start_time, end_time, clock_skew_ms, hostname, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, sh.index, len(g.shards), sh.status, sh.missing(), sh.records, stamp(start), stamp(end), opt(skew), str(host), str(reason))
		if err != nil {
			return 0, fmt.Errorf("insert run shards: %w", err)
		}
	}
	return total, nil
}
