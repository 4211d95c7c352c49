package query

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/aiperf-go/aiperf/sink"
)

// Telemetry artifact names (AIPerf's; with --profile-export-prefix P they
// are P_gpu_telemetry.jsonl, P_server_metrics.jsonl, P_server_metrics.json)
// and the segment folders of a run that did not finish.
const (
	gpuTelemetryFile      = "gpu_telemetry_export.jsonl"
	serverMetricsFile     = "server_metrics_export.jsonl"
	serverMetricsJSONFile = "server_metrics_export.json"
	serverMetadataFile    = "server_metrics_metadata.json"
	// telemetryStartFile is written by aiperf-go before a run's first
	// request: the server's identity and its metrics' types, for runs
	// that never wrote their manifest or export.
	telemetryStartFile = "telemetry/start.json"
	gpuSegments        = "telemetry/gpu"
	serverSegments     = "telemetry/server"
)

// telemetryPlan is what a run holds of telemetry, ready to load: local
// JSONL files (read in order), the metric types its server metrics export
// names, and what its manifest says about the server and the sources.
type telemetryPlan struct {
	gpu, server []string
	// types maps server metric names to their type (typeGauge, …); nil
	// when the run has no server_metrics_export.json.
	types map[string]uint8
	prov  *provenance
}

// telemetryNames returns the names of a run's GPU telemetry, server
// metrics, and the documents that name server metric types (the export,
// aiperf-go's metadata, then the start.json of a run that did not
// finish), as AIPerf names them under prefix.
func telemetryNames(prefix string) (gpu, server, export []string) {
	gpu, server, export = []string{gpuTelemetryFile}, []string{serverMetricsFile}, []string{serverMetricsJSONFile, serverMetadataFile, telemetryStartFile}
	if prefix != "" {
		gpu = append([]string{prefix + "_gpu_telemetry.jsonl"}, gpu...)
		server = append([]string{prefix + "_server_metrics.jsonl"}, server...)
		export = append([]string{prefix + "_server_metrics.json"}, export...)
	}
	return gpu, server, export
}

// planStoredTelemetry finds a stored run's telemetry and stages it as
// local files for p (the composed files of a finished run, or the
// segments of one that did not finish), reads the metric types of its
// server metrics export, and its manifest's provenance. cleanup removes
// what was staged; call it in every case.
func planStoredTelemetry(ctx context.Context, store *sink.Store, sr *storedRun, p *loadPlan) (cleanup func(), err error) {
	var cleanups []func()
	cleanup = func() {
		for _, c := range cleanups {
			c()
		}
	}
	key := func(name string) string { return sink.RunsPrefix + sr.ID + "/" + name }
	if sr.Manifest != nil {
		p.telemetry.prov = parseProvenance(sr.manifestJSON)
	} else if _, ok := sr.objects[telemetryStartFile]; ok {
		// An unfinished run: the identity stored before its first request.
		if data, err := store.Bucket.ReadAll(ctx, key(telemetryStartFile)); err == nil {
			p.telemetry.prov = parseProvenance(data)
		}
	}
	gpuNames, serverNames, exportNames := telemetryNames(p.run.Config.ExportPrefix)
	for _, part := range []struct {
		names []string
		dir   string
		dst   *[]string
	}{{gpuNames, gpuSegments, &p.telemetry.gpu}, {serverNames, serverSegments, &p.telemetry.server}} {
		objs := pickObject(sr.objects, part.names, part.dir)
		if len(objs) == 0 {
			continue
		}
		files, c, err := localFiles(ctx, store, sr.ID, objs)
		cleanups = append(cleanups, c)
		if err != nil {
			return cleanup, err
		}
		*part.dst = files
	}
	if len(p.telemetry.server) > 0 {
		for _, n := range exportNames {
			if _, ok := sr.objects[n]; ok && p.telemetry.types == nil {
				if data, err := store.Bucket.ReadAll(ctx, key(n)); err == nil {
					p.telemetry.types = parseMetricTypes(data)
				}
			}
		}
	}
	return cleanup, nil
}

// planDirTelemetry finds the telemetry of an AIPerf artifact directory
// for p, and folds the files' names, sizes and times into its content key
// (a run without telemetry keeps its key).
func planDirTelemetry(dir string, p *loadPlan) error {
	gpuNames, serverNames, exportNames := telemetryNames(p.run.Config.ExportPrefix)
	h := sha256.New()
	found := false
	pick := func(names []string) string {
		for _, n := range names {
			fi, err := os.Stat(filepath.Join(dir, n))
			if err == nil && fi.Mode().IsRegular() {
				fmt.Fprintf(h, "\x00%s\x00%d\x00%d", n, fi.Size(), fi.ModTime().UnixNano())
				found = true
				return filepath.Join(dir, n)
			}
		}
		return ""
	}
	if f := pick(gpuNames); f != "" {
		p.telemetry.gpu = []string{f}
	}
	if f := pick(serverNames); f != "" {
		p.telemetry.server = []string{f}
		for _, n := range exportNames {
			if export := pick([]string{n}); export != "" && p.telemetry.types == nil {
				data, err := os.ReadFile(export)
				if err != nil {
					return err
				}
				p.telemetry.types = parseMetricTypes(data)
			}
		}
	}
	if found {
		p.run.ContentKey += "+telemetry:" + hex.EncodeToString(h.Sum(nil))
	}
	return nil
}

// insertTelemetry loads the run's telemetry in tx: its GPU readings into
// gpu_telemetry, its server metric samples into server_metrics, and the
// runs columns about them (provenance from the manifest; gpu_count, when
// the manifest does not give it, and gpu_model from the readings).
func (db *DB) insertTelemetry(ctx context.Context, tx *sql.Tx, runID string, t *telemetryPlan) error {
	if err := updateProvenance(ctx, tx, runID, t.prov); err != nil {
		return err
	}
	if len(t.gpu) == 0 && len(t.server) == 0 {
		return nil
	}
	restore, err := db.oneThread(ctx, tx)
	if err != nil {
		return fmt.Errorf("load telemetry: %w", err)
	}
	if len(t.gpu) > 0 {
		src := startLines(ctx, t.gpu, func() lineDecoder[gpuBatch] { return new(gpuDecoder) }, nil)
		err = insertTelemetryRows(ctx, tx, runID, gpuInsert, gpuTableColumns, src)
		if err != nil {
			err = fmt.Errorf("load gpu telemetry: %w", err)
		}
	}
	if err == nil && len(t.server) > 0 {
		src := startLines(ctx, t.server, func() lineDecoder[serverBatch] { return &serverDecoder{types: t.types} }, nil)
		err = insertTelemetryRows(ctx, tx, runID, serverInsert, serverTableColumns, src)
		if err != nil {
			err = fmt.Errorf("load server metrics: %w", err)
		}
	}
	if rerr := restore(); err == nil && rerr != nil {
		err = fmt.Errorf("load telemetry: %w", rerr)
	}
	if err != nil {
		return err
	}
	// GPUs are counted per source, as AIPerf counts them: a GPU that two
	// exporters report counts twice.
	_, err = tx.ExecContext(ctx, `UPDATE runs SET
		gpu_count = coalesce(gpu_count, (SELECT nullif(count(DISTINCT (source_url, coalesce(gpu_uuid, CAST(gpu_index AS VARCHAR)))), 0)
			FROM gpu_telemetry WHERE run_id = $1)),
		gpu_model = (SELECT string_agg(DISTINCT gpu_model_name, ', ' ORDER BY gpu_model_name) FROM gpu_telemetry WHERE run_id = $1)
		WHERE run_id = $1`, runID)
	if err != nil {
		return fmt.Errorf("update run: %w", err)
	}
	return nil
}

// insertTelemetryRows inserts the rows of src with the INSERT q (whose
// parameters are the run id and the table handle) and closes src.
func insertTelemetryRows[B any, PB interface {
	*B
	rowBatch
}](ctx context.Context, tx *sql.Tx, runID, q string, cols []duckdb.ColumnInfo, src *lineSource[B]) error {
	defer src.close()
	t := &telemetryTable{cols: cols, next: func() (rowBatch, error) {
		b, err := src.next()
		if b == nil {
			return nil, err
		}
		return PB(b), nil
	}}
	id, remove := addSource(t)
	defer remove()
	_, err := tx.ExecContext(ctx, q, runID, id)
	return err
}
