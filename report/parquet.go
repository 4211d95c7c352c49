package report

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Tables are the tables Export writes.
var Tables = []string{"runs", "requests", "run_metrics", "run_shards", "gpu_telemetry", "server_metrics"}

// ExportParquet writes each of Tables as dir/<table>.parquet with DuckDB's
// own Parquet writer (zstd-compressed) and returns the files written.
func ExportParquet(ctx context.Context, db *sql.DB, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	var files []string
	for _, t := range Tables {
		path := filepath.Join(dir, t+".parquet")
		q := fmt.Sprintf(`COPY %s TO '%s' (FORMAT parquet, COMPRESSION zstd)`, t, strings.ReplaceAll(path, "'", "''"))
		if _, err := db.ExecContext(ctx, q); err != nil {
			return files, fmt.Errorf("export %s: %w", t, err)
		}
		files = append(files, path)
	}
	return files, nil
}
