package query

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/sink"
)

// benchGroupShards is the number of shards of the benchmark's group.
const benchGroupShards = 4

// benchGroupStore returns a directory store holding the records of the
// benchmark run of shape name (benchStore) as a run group of
// benchGroupShards shards, each a contiguous part of them.
func benchGroupStore(b *testing.B, name string, o genOptions) string {
	b.Helper()
	src := benchStore(b, name, o)
	benchMu.Lock()
	defer benchMu.Unlock()
	key := name + "-group"
	if dir, ok := benchStores[key]; ok {
		return dir
	}
	dir, err := os.MkdirTemp("", "query-bench-group-")
	if err != nil {
		b.Fatal(err)
	}
	benchStores[key] = dir
	data, err := os.ReadFile(filepath.Join(src, "runs", benchRunID, "profile_export.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	per := (len(lines) + benchGroupShards - 1) / benchGroupShards
	for i := range benchGroupShards {
		shard := filepath.Join(dir, "runs", "bench-group", "shards", fmt.Sprint(i))
		if err := os.MkdirAll(shard, 0o755); err != nil {
			b.Fatal(err)
		}
		part := bytes.Join(lines[min(i*per, len(lines)):min((i+1)*per, len(lines))], nil)
		if err := os.WriteFile(filepath.Join(shard, "profile_export.jsonl"), part, 0o644); err != nil {
			b.Fatal(err)
		}
		m := shardManifest{Manifest: sink.Manifest{
			SchemaVersion: sink.ManifestSchemaVersion, RunID: "bench-group/shards/" + fmt.Sprint(i), Status: sink.StatusComplete,
			Start: time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 22, 4, 1, 0, 0, time.UTC),
			Objects: []sink.Object{{Name: "profile_export.jsonl"}},
		}, Shard: &shardFacts{Group: "bench-group", Index: i, Count: benchGroupShards}}
		out, _ := json.Marshal(m)
		if err := os.WriteFile(filepath.Join(shard, "manifest.json"), out, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkIngestGroup is BenchmarkIngest's non-streaming and 16-chunk
// runs stored as a group of benchGroupShards shards: the same loader, plus
// the summary recomputed over all the records.
func BenchmarkIngestGroup(b *testing.B) {
	for _, s := range []struct {
		name string
		o    genOptions
	}{
		{"nonstreaming", genOptions{Records: benchRecords, OSL: 200, ISL: 550, ErrorEvery: 100, Seed: 1}},
		{"stream-osl16", genOptions{Records: benchRecords, Streaming: true, OSL: 16, ISL: 550, ErrorEvery: 100, Seed: 2}},
	} {
		b.Run(s.name, func(b *testing.B) {
			dir := benchGroupStore(b, s.name, s.o)
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
				db, err := Open(ctx, "")
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
			b.ReportMetric(float64(b.N*benchRecords)/elapsed.Seconds(), "records/s")
		})
	}
}
