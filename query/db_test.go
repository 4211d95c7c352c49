package query

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/metrics"
)

func TestOpenCreatesSchema(t *testing.T) {
	db := openTestDB(t)
	v, err := db.Version(context.Background())
	if err != nil || v != SchemaVersion {
		t.Fatalf("version %q %v", v, err)
	}
	var names []string
	rows, err := db.SQL().Query(`SELECT table_name FROM duckdb_tables() UNION ALL SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		_ = rows.Scan(&n)
		names = append(names, n)
	}
	want := []string{"gpu_summary", "gpu_telemetry", "requests", "run_metrics", "run_shards", "run_summary", "run_windows", "runs",
		"schema_info", "server_metrics", "server_metrics_summary", "workloads"}
	if !slices.Equal(names, want) {
		t.Fatalf("objects %v, want %v", names, want)
	}
}

func TestOpenFileReopensAndRejectsUnknownVersion(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bench.duckdb")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.IngestAIPerfDir(ctx, "testdata"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM runs`); n != 1 {
		t.Errorf("runs after reopen %d", n)
	}
	st, err := db.IngestAIPerfDir(ctx, "testdata")
	if err != nil || st.RunsSkipped != 1 {
		t.Errorf("ingest after reopen %+v %v", st, err)
	}
	if _, err := db.SQL().Exec(`UPDATE schema_info SET version = '99'`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	if _, err := Open(ctx, path); !errors.Is(err, ErrSchemaVersion) {
		t.Fatalf("open of a newer schema: %v", err)
	}
}

// TestMetricColumnsCoverCatalog: every scalar metric the runner can write
// to profile_export.jsonl has a column, and every column is such a metric.
// A new metric in the catalogue fails here until the schema (and its
// version) takes it.
func TestMetricColumnsCoverCatalog(t *testing.T) {
	var perRecord []string
	for _, m := range metrics.Catalog() {
		if !m.Exported() || m.Flags.Has(metrics.FlagNoIndividualRecords) || m.Tag == "inter_chunk_latency" {
			continue
		}
		if m.Kind == metrics.KindRecord || m.Kind == metrics.KindAggregate {
			perRecord = append(perRecord, m.Tag)
		}
	}
	cols := slices.Clone(MetricColumns)
	slices.Sort(perRecord)
	slices.Sort(cols)
	if !slices.Equal(perRecord, cols) {
		t.Errorf("catalog per-record metrics:\n%v\nMetricColumns:\n%v", perRecord, cols)
	}
}

// TestSchemaDocumented: docs/schema.md names the schema version and every
// table, view and column.
func TestSchemaDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "schema.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	if !strings.Contains(text, "version "+SchemaVersion) {
		t.Errorf("docs/schema.md does not name version %s", SchemaVersion)
	}
	db := openTestDB(t)
	rows, err := db.SQL().Query(`SELECT table_name, column_name FROM duckdb_columns() WHERE NOT internal`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var table, col string
		_ = rows.Scan(&table, &col)
		seen[table] = true
		if !strings.Contains(text, "`"+table+"`") {
			t.Errorf("docs/schema.md lacks table %s", table)
		}
		if !strings.Contains(text, "`"+col+"`") {
			t.Errorf("docs/schema.md lacks %s.%s", table, col)
		}
	}
	if len(seen) != 12 || !seen["workloads"] || !seen["run_summary"] || !seen["gpu_summary"] {
		t.Errorf("checked the columns of %v", seen)
	}
}

func TestWorkloadID(t *testing.T) {
	db := openTestDB(t)
	tests := []struct {
		args string
		want string
	}{
		{`'mock-model', 'chat', true, 550.0, 256.0, 'concurrency', 8, NULL`, "mock-model|chat|stream|isl550|osl256|concurrency8"},
		{`'m', 'completions', false, 100.5, NULL, 'request_rate', NULL, 10`, "m|completions|nostream|isl100.5|oslna|request_rate10.0"},
		{`'m', 'chat', true, 32, 12, 'request_rate', 4, 2.5`, "m|chat|stream|isl32|osl12|concurrency4-request_rate2.5"},
		{`NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL`, "na|na|na|islna|oslna|na"},
	}
	for _, tc := range tests {
		var got string
		if err := db.SQL().QueryRow(`SELECT workload_id(` + tc.args + `)`).Scan(&got); err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		if got != tc.want {
			t.Errorf("workload_id(%s) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestMigrateFromVersion1: a database written by schema 1 (no labels) opens,
// keeps its runs and gains runs.labels and run_summary.labels.
func TestMigrateFromVersion1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v1.duckdb")
	raw, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	stmts := append([]string{`CREATE TABLE schema_info (version VARCHAR NOT NULL)`, `INSERT INTO schema_info VALUES ('1')`}, migrations[0]...)
	stmts = append(stmts, `INSERT INTO runs (run_id, source, status, ingested_at, content_key) VALUES ('r1', 's', 'complete', now(), 'k')`)
	for _, q := range stmts {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var id string
	var labels sql.NullString
	if err := db.SQL().QueryRow(`SELECT run_id, labels FROM run_summary`).Scan(&id, &labels); err != nil || id != "r1" || labels.Valid {
		t.Fatalf("after migration: %q %v %v", id, labels, err)
	}
	if v, _ := db.Version(ctx); v != SchemaVersion {
		t.Errorf("version %q", v)
	}
}

// TestMigrateToSchema4ReloadsRuns: runs loaded under schema 3 (without
// telemetry tables or provenance columns) are reloaded by the first
// ingest after the migration, so that their telemetry and provenance
// load, rather than skipped as unchanged.
func TestMigrateToSchema4ReloadsRuns(t *testing.T) {
	ctx := context.Background()
	store := telemetryStore(t)
	loaded := filepath.Join(t.TempDir(), "v4.duckdb")
	db, err := Open(ctx, loaded)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := db.Ingest(ctx, "", openStore(t, store)); err != nil || st.RunsLoaded != 3 {
		t.Fatalf("ingest %+v %v", st, err)
	}
	db.Close()

	// The same runs in a schema 3 database, as schema 3 held them.
	path := filepath.Join(t.TempDir(), "v3.duckdb")
	raw, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{`CREATE TABLE schema_info (version VARCHAR NOT NULL)`, `INSERT INTO schema_info VALUES ('3')`}
	for _, m := range migrations[:3] {
		stmts = append(stmts, m...)
	}
	stmts = append(stmts, `ATTACH '`+loaded+`' AS loaded (READ_ONLY)`)
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	var runCols string
	err = conn.QueryRowContext(ctx, `SELECT string_agg(column_name, ', ' ORDER BY ordinal_position)
		FROM information_schema.columns WHERE table_catalog = 'v3' AND table_name = 'runs'`).Scan(&runCols)
	if err != nil || strings.Contains(runCols, "gpu_count") {
		t.Fatalf("schema 3 runs columns %q: %v", runCols, err)
	}
	// Schema 5 added requests columns too: schema 3 has fewer.
	var reqCols string
	err = conn.QueryRowContext(ctx, `SELECT string_agg(column_name, ', ' ORDER BY ordinal_position)
		FROM information_schema.columns WHERE table_catalog = 'v3' AND table_name = 'requests'`).Scan(&reqCols)
	if err != nil || strings.Contains(reqCols, "video_inference_time") {
		t.Fatalf("schema 3 requests columns %q: %v", reqCols, err)
	}
	for _, s := range []string{
		`INSERT INTO runs SELECT ` + runCols + ` FROM loaded.runs`,
		`INSERT INTO requests SELECT ` + reqCols + ` FROM loaded.requests`,
		`INSERT INTO run_metrics SELECT * FROM loaded.run_metrics`,
		`DETACH loaded`,
	} {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	conn.Close()
	raw.Close()

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := db.Ingest(ctx, "", openStore(t, store))
	if err != nil || st.RunsLoaded != 3 {
		t.Fatalf("ingest after the migration %+v %v", st, err)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM gpu_telemetry WHERE run_id = ?`, telemetryRun); n != 20 {
		t.Errorf("%d GPU readings of %s, want 20", n, telemetryRun)
	}
	var software sql.NullString
	if err := db.SQL().QueryRow(`SELECT server_software FROM runs WHERE run_id = ?`, telemetryRun).Scan(&software); err != nil || software.String != "vllm" {
		t.Errorf("server_software %v %v", software, err)
	}
	if st, err := db.Ingest(ctx, "", openStore(t, store)); err != nil || st.RunsSkipped != 3 {
		t.Errorf("second ingest %+v %v", st, err)
	}
}
