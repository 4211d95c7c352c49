package query

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// runRow is what the runs table holds about one run.
type runRow struct {
	ID, Source, Status, Reason string
	Start, End                 time.Time // zero: unknown
	ToolName, ToolVersion      string
	ToolCommit, BenchmarkID    string
	Config                     configFacts
	DatasetSHA256              string
	Hostname, Kernel           string
	CPUs                       int
	Manifest, InputConfig      []byte // JSON; nil: NULL
	Labels                     []byte // JSON object; nil: NULL
	ContentKey                 string
}

// loadPlan is one run ready to load: its row, its summary statistics and
// where its records are.
type loadPlan struct {
	run     runRow
	metrics []metricRow
	// records are local JSONL files, read in order; csv is a local
	// profile_export_records.csv used when there is no JSONL.
	records []string
	csv     string
	// telemetry is the run's GPU telemetry and server metrics.
	telemetry telemetryPlan
	// group, for a run group, replaces records: the shards' records, from
	// which the metrics are recomputed after they load.
	group *groupPlan
}

// replaceRun loads p in one transaction, replacing every row the run had
// before. It returns the number of records loaded.
func (db *DB) replaceRun(ctx context.Context, p *loadPlan) (int64, error) {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	id := p.run.ID
	for _, table := range []string{"requests", "run_metrics", "run_shards", "gpu_telemetry", "server_metrics", "runs"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE run_id = ?`, id); err != nil {
			return 0, fmt.Errorf("delete old rows: %w", err)
		}
	}
	cleanup, err := db.trimTornRecords(p)
	if err != nil {
		return 0, err
	}
	defer cleanup()
	redactRun(&p.run)
	if err := insertRun(ctx, tx, &p.run); err != nil {
		return 0, err
	}
	if err := insertMetrics(ctx, tx, id, p.metrics); err != nil {
		return 0, err
	}
	var n int64
	switch {
	case p.group != nil:
		n, err = db.insertGroup(ctx, tx, id, p.group)
	case len(p.records) > 0:
		n, err = db.insertRecords(ctx, tx, id, p.records)
	case p.csv != "":
		n, err = insertCSV(ctx, tx, id, p.csv)
	}
	if err != nil {
		return 0, err
	}
	if err := db.insertTelemetry(ctx, tx, id, &p.telemetry); err != nil {
		return 0, err
	}
	// A run without a manifest has no times of its own: take them from
	// its records (a scan of them, spared when the times are known).
	if p.run.Start.IsZero() || p.run.End.IsZero() {
		_, err = tx.ExecContext(ctx, `
		UPDATE runs SET records = ?,
			start_time = coalesce(start_time, (SELECT make_timestamp(min(request_start_ns) // 1000) FROM requests WHERE run_id = ?)),
			end_time   = coalesce(end_time,   (SELECT make_timestamp(max(request_end_ns) // 1000) FROM requests WHERE run_id = ?))
		WHERE run_id = ?`, n, id, id, id)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE runs SET records = ? WHERE run_id = ?`, n, id)
	}
	if err != nil {
		return 0, fmt.Errorf("update run: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("commit: %w", err)
	}
	return n, nil
}

func insertRun(ctx context.Context, tx *sql.Tx, r *runRow) error {
	c := &r.Config
	models := []byte(nil)
	if len(c.Models) > 0 {
		models, _ = json.Marshal(c.Models)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO runs (
		run_id, source, status, reason, start_time, end_time, tool_name, tool_version, tool_commit, benchmark_id,
		model, models, endpoint_type, streaming, load_mode, concurrency, request_rate, arrival_pattern, request_count,
		isl_mean, isl_stddev, osl_mean, osl_stddev, dataset_sha256, hostname, cpus, kernel,
		manifest, input_config, labels, ingested_at, content_key)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
			?, CAST(CAST(? AS JSON) AS VARCHAR[]), ?, ?, ?, ?, ?, ?, ?,
			?, ?, ?, ?, ?, ?, ?, ?,
			?, ?, ?, ?, ?)`,
		r.ID, r.Source, r.Status, str(r.Reason), stamp(r.Start), stamp(r.End), str(r.ToolName), str(r.ToolVersion), str(r.ToolCommit), str(r.BenchmarkID),
		str(c.Model()), jsonArg(models), str(c.EndpointType), opt(c.Streaming), str(c.LoadMode), opt(c.Concurrency), opt(c.RequestRate), str(c.ArrivalPattern), opt(c.RequestCount),
		opt(c.ISLMean), opt(c.ISLStddev), opt(c.OSLMean), opt(c.OSLStddev), str(r.DatasetSHA256), str(r.Hostname), positive(r.CPUs), str(r.Kernel),
		jsonArg(r.Manifest), jsonArg(r.InputConfig), jsonArg(r.Labels), time.Now().UTC(), r.ContentKey)
	if err != nil {
		return fmt.Errorf("insert run: %w", err)
	}
	return nil
}

func insertMetrics(ctx context.Context, tx *sql.Tx, id string, rows []metricRow) error {
	if len(rows) == 0 {
		return nil
	}
	cols := 3 + len(statColumns) + 1
	ph := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
	var q strings.Builder
	q.WriteString(`INSERT INTO run_metrics (run_id, tag, unit, ` + strings.Join(statColumns, ", ") + `, scalar) VALUES `)
	args := make([]any, 0, len(rows)*cols)
	for i := range rows {
		m := &rows[i]
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString(ph)
		args = append(args, id, m.Tag, str(m.Unit))
		for _, v := range m.Stats {
			args = append(args, v)
		}
		args = append(args, m.Scalar)
	}
	if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
		return fmt.Errorf("insert run metrics: %w", err)
	}
	return nil
}

// str maps "" to NULL.
func str(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// stamp maps the zero time to NULL and others to UTC.
func stamp(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}

// positive maps n <= 0 to NULL.
func positive(n int) any {
	if n <= 0 {
		return nil
	}
	return n
}

// opt maps nil to NULL and dereferences the rest.
func opt[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// jsonArg passes JSON text, or NULL for none.
func jsonArg(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}
