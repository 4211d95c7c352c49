package query

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/sink"
)

// benchRecords is the size of the benchmark's run, benchRunID its id.
const (
	benchRecords = 200000
	benchRunID   = "20261122T040000Z-0000beef"
)

var (
	benchMu     sync.Mutex
	benchStores = map[string]string{} // shape → store dir, removed by TestMain
)

// benchStore returns a directory store holding one complete run of
// benchRecords records of the given shape, made once per test binary.
func benchStore(b *testing.B, name string, o genOptions) string {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if dir, ok := benchStores[name]; ok {
		return dir
	}
	dir, err := os.MkdirTemp("", "query-bench-")
	if err != nil {
		b.Fatal(err)
	}
	benchStores[name] = dir
	id := benchRunID
	runDir := filepath.Join(dir, "runs", id)
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(filepath.Join(runDir, "profile_export.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	if err := writeRecords(f, o); err != nil {
		b.Fatal(err)
	}
	f.Close()
	m := sink.Manifest{
		SchemaVersion: sink.ManifestSchemaVersion, RunID: id, Status: sink.StatusComplete,
		Start: time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 22, 4, 1, 0, 0, time.UTC),
		Config:  map[string]any{"models": map[string]any{"items": []any{map[string]any{"name": "bench-model"}}}},
		Objects: []sink.Object{{Name: "profile_export.jsonl"}},
	}
	data, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(runDir, "manifest.json"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkIngest ingests a store holding one run of 200,000 records made
// by the runner's own encoder, into a fresh in-memory database per
// iteration (one database file for -dbfile: the commit writes it), and
// reports records/s and MB/s of JSONL. Shapes: non-streaming (about 1 KB a
// record), and streaming with 16 and 128 chunks on average, whose
// inter_chunk_latency lists dominate the size.
func BenchmarkIngest(b *testing.B) {
	nonStreaming := genOptions{Records: benchRecords, OSL: 200, ISL: 550, ErrorEvery: 100, Seed: 1}
	shapes := []struct {
		name, data string
		o          genOptions
		file       bool // into a database file rather than memory
	}{
		{"nonstreaming", "nonstreaming", nonStreaming, false},
		{"nonstreaming-dbfile", "nonstreaming", nonStreaming, true},
		{"stream-osl16", "stream-osl16", genOptions{Records: benchRecords, Streaming: true, OSL: 16, ISL: 550, ErrorEvery: 100, Seed: 2}, false},
		{"stream-osl128", "stream-osl128", genOptions{Records: benchRecords, Streaming: true, OSL: 128, ISL: 550, ErrorEvery: 100, Seed: 3}, false},
	}
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			dir := benchStore(b, s.data, s.o)
			fi, err := os.Stat(filepath.Join(dir, "runs", benchRunID, "profile_export.jsonl"))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			store, err := sink.Open(ctx, dir, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer store.Close()
			var elapsed time.Duration
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				path := ""
				if s.file {
					path = filepath.Join(b.TempDir(), "bench.duckdb")
				}
				db, err := Open(ctx, path)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				st, err := db.Ingest(ctx, "", store)
				if err != nil || st.Records != benchRecords {
					b.Fatalf("%+v %v", st, err)
				}
				elapsed += st.Duration
				b.StopTimer()
				db.Close()
				b.StartTimer()
			}
			sec := elapsed.Seconds()
			b.ReportMetric(float64(b.N*benchRecords)/sec, "records/s")
			b.ReportMetric(float64(b.N)*float64(fi.Size())/1e6/sec, "MB/s")
		})
	}
}
