package report

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/aiperf-go/aiperf/query"
	"github.com/aiperf-go/aiperf/sink"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// telemetryDB loads a copy of query's telemetry fixture store (a finished
// run with GPU telemetry and server metrics, a killed run with segments,
// and an older run without telemetry).
func telemetryDB(t *testing.T) *query.DB {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "query", "testdata", "telemetry-store"))); err != nil {
		t.Fatal(err)
	}
	db, err := query.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	store, err := sink.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if st, err := db.Ingest(ctx, "", store); err != nil || st.RunsLoaded != 3 {
		t.Fatalf("ingest %+v: %v", st, err)
	}
	return db
}

// TestShowTelemetry compares show's telemetry tables with golden files:
// the numbers in them are those query's tests check by hand (power
// 655.421 / 7 W, 183.455 J per exporter, 450 tokens in 2 s, …).
func TestShowTelemetry(t *testing.T) {
	db := telemetryDB(t)
	for run, golden := range map[string]string{
		"20251107T213850Z-7e1e0001": "show-telemetry.golden",
		"20251107T214000Z-7e1e0002": "show-telemetry-segments.golden",
		"20251107T220000Z-7e1e0003": "",
	} {
		var b bytes.Buffer
		if err := ShowTelemetry(context.Background(), db.SQL(), &b, run); err != nil {
			t.Fatal(err)
		}
		if golden == "" {
			if b.Len() != 0 {
				t.Errorf("%s has no telemetry, show wrote:\n%s", run, b.String())
			}
			continue
		}
		path := filepath.Join("testdata", golden)
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s:\n--- got\n%s\n--- want (%s; -update rewrites)\n%s", run, b.String(), path, want)
		}
	}
}

func TestFormatNumber(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0.00", 93.6315714: "93.63", 1234567.8: "1.23e+06", 999999.994: "999,999.99", -1234.5: "-1,234.50", 183.455: "183.46",
		-0.001: "-0.0010", 0.19: "0.1900", 0.248: "0.2480", -0.00001: "0.0000", 0.996: "1.00",
	} {
		if got := formatNumber(v); got != want {
			t.Errorf("formatNumber(%v) = %q, want %q", v, got, want)
		}
	}
}
