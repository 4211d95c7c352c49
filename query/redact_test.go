package query

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/secret"
)

// The leaky fixtures hold the secrets an older aiperf-go or Python AIPerf
// may have stored unredacted, every one of them containing "LEAK": an API
// key, secret headers, nested extra inputs, credentials in URLs, in
// cli_command, in labels and in telemetry endpoints.
const (
	leakyStore   = "testdata/leaky-store"
	leakyRun     = "20251107T230000Z-5ec7e700"
	leakyAIPerf  = "testdata/leaky-store/python-aiperf" // skipped by walks of testdata: inside a store
	leakyAIPerfR = "aiperf-5ec7e7a1-0000-4000-8000-000000000001"
	leakMark     = "LEAK"
)

// TestIngestRedactsStoredSecrets loads a stored run and an AIPerf
// directory holding secrets, then searches every column of every table
// as text: no secret may be left, while the values that are not secret
// (max_tokens, models, plain URLs, headers) stay.
func TestIngestRedactsStoredSecrets(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	store := t.TempDir()
	copyDir(t, leakyStore, store)
	if st, err := db.Ingest(ctx, "", openStore(t, store)); err != nil || st.RunsLoaded != 1 {
		t.Fatalf("ingest %+v: %v", st, err)
	}
	dir := t.TempDir()
	copyDir(t, leakyAIPerf, filepath.Join(dir, "leaky"))
	if st, err := db.IngestAIPerfDir(ctx, dir); err != nil || st.RunsLoaded != 1 {
		t.Fatalf("ingest aiperf dir %+v: %v", st, err)
	}
	if leaks := findText(t, db, leakMark); len(leaks) > 0 {
		t.Errorf("secrets left in the database:\n%s", strings.Join(leaks, "\n"))
	}
	for _, tc := range []struct{ q, want string }{
		{`SELECT model FROM runs WHERE run_id = '` + leakyRun + `'`, "Qwen/Qwen3-0.6B"},
		{`SELECT model FROM runs WHERE run_id = '` + leakyAIPerfR + `'`, "mock-model"},
		{`SELECT input_config->'input'->'extra_inputs'->>'max_tokens' FROM runs WHERE run_id = '` + leakyRun + `'`, "64"},
		{`SELECT input_config->'input'->'extra_inputs'->>'auth' FROM runs WHERE run_id = '` + leakyRun + `'`, secret.Redacted},
		{`SELECT input_config->'endpoint'->>'api_key' FROM runs WHERE run_id = '` + leakyRun + `'`, secret.Redacted},
		{`SELECT input_config->'endpoint'->'headers'->>1 FROM runs WHERE run_id = '` + leakyRun + `'`, "X-Tenant: blue"},
		{`SELECT input_config->'endpoint'->'urls'->>1 FROM runs WHERE run_id = '` + leakyRun + `'`, "http://localhost:8001/v1"},
		{`SELECT input_config->'endpoint'->>'url' FROM runs WHERE run_id = '` + leakyRun + `'`, "http://<redacted>@localhost:8000"},
		{`SELECT manifest->'labels'->>'gpu' FROM runs WHERE run_id = '` + leakyRun + `'`, "h100"},
		{`SELECT server_url FROM runs WHERE run_id = '` + leakyRun + `'`, "http://<redacted>@localhost:8000"},
		{`SELECT input_config->'artifacts'->>'cli_command' FROM runs WHERE run_id = '` + leakyRun + `'`,
			"aiperf profile --model 'Qwen/Qwen3-0.6B' --api-key '<redacted>' -H 'Authorization:<redacted>' --url 'http://<redacted>@localhost:8000' --extra-inputs 'max_tokens:64'"},
		{`SELECT input_config->'endpoint'->'extra'->1->>1 FROM runs WHERE run_id = '` + leakyAIPerfR + `'`, "64"},
		{`SELECT input_config->'endpoint'->'urls'->>1 FROM runs WHERE run_id = '` + leakyAIPerfR + `'`, "http://aiperf-mock-server:8001/v1"},
		{`SELECT string_agg(DISTINCT source_url, ' ' ORDER BY source_url) FROM gpu_telemetry WHERE run_id = '` + leakyRun + `'`,
			"http://<redacted>@localhost:9400/metrics http://localhost:9402/metrics"},
		{`SELECT DISTINCT endpoint_url FROM server_metrics WHERE run_id = '` + leakyRun + `'`,
			"http://<redacted>@localhost:8000/metrics?api_key=<redacted>"},
		{`SELECT DISTINCT endpoint_url FROM server_metrics WHERE run_id = '` + leakyAIPerfR + `'`,
			"http://<redacted>@aiperf-mock-server:8000/metrics"},
	} {
		var got string
		if err := db.SQL().QueryRow(tc.q).Scan(&got); err != nil || got != tc.want {
			t.Errorf("%s\n got  %q (%v)\n want %q", tc.q, got, err, tc.want)
		}
	}
}

// findText returns "table.column: value" for every value of every column
// of every table, cast to text, that contains s.
func findText(t *testing.T, db *DB, s string) []string {
	t.Helper()
	cols := queryRows(t, db, `SELECT c.table_name, c.column_name FROM information_schema.columns c
		JOIN information_schema.tables USING (table_schema, table_name)
		WHERE table_type = 'BASE TABLE' ORDER BY ALL`)
	if len(cols) < 50 {
		t.Fatalf("only %d columns: the schema query is wrong", len(cols))
	}
	var found []string
	for _, c := range cols {
		table, col := c[0].(string), c[1].(string)
		rows := queryRows(t, db, `SELECT DISTINCT CAST("`+col+`" AS VARCHAR) FROM "`+table+`" WHERE contains(CAST("`+col+`" AS VARCHAR), ?)`, s)
		for _, r := range rows {
			found = append(found, table+"."+col+": "+r[0].(string))
		}
	}
	return found
}
