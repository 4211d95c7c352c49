package query

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/duckdb/duckdb-go/v2"
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
