//go:build integration

package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/runner"
	"github.com/aiperf-go/aiperf/sink/opener"
)

// TestMinIORunsIngest: the runner writes runs to MinIO, ingest reads them
// back through the S3 API, and show reproduces the runner's table.
func TestMinIORunsIngest(t *testing.T) {
	base := os.Getenv("AIPERF_TEST_S3_URL")
	if base == "" {
		if os.Getenv("AIPERF_TEST_REQUIRE_STORES") != "" {
			t.Fatal("AIPERF_TEST_S3_URL is not set: start the servers with scripts/emulators.sh")
		}
		t.Skip("AIPERF_TEST_S3_URL not set")
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	dest := base + "&prefix=report-" + hex.EncodeToString(b[:]) + "/"

	srv := mocktest.Start(t, mockserver.Config{TTFT: 10 * time.Millisecond, OutputTokens: 4})
	var ids []string
	var first string
	for i := 0; i < 2; i++ {
		cfg := runner.Defaults()
		cfg.Models, cfg.URL, cfg.UIType = []string{"mock-model"}, srv.URL(), "none"
		cfg.ArtifactDir, cfg.ArtifactDirSet = dest, true
		cfg.Streaming, cfg.Concurrency, cfg.RequestCount = true, 2, 10
		var out bytes.Buffer
		res, err := runner.Run(context.Background(), &cfg, runner.Options{Stdout: &out, Stores: opener.Mux()})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Files.RunID)
		if i == 0 {
			first = consoleTable(out.String())
		}
	}
	db := t.TempDir() + "/runs.duckdb"
	code, out, errs := reportCLI(t, "--db", db, "ingest", dest)
	if code != 0 || !strings.Contains(out, "2 loaded") {
		t.Fatalf("ingest from MinIO: %d %s %s", code, out, errs)
	}
	code, out, errs = reportCLI(t, "--db", db, "show", ids[0])
	if code != 0 || showTable(out) != first {
		t.Fatalf("show after MinIO ingest differs (%d %s):\n%s\n---\n%s", code, errs, out, first)
	}
}
