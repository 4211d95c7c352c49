package query

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/runner"
)

// Run groups of the group fixture (groupStore).
const (
	// splitGroup is one real run's records split round-robin over three
	// shards (shard 2 as record segments): it must read back as that run.
	splitGroup = "split-group"
	// shardGroup is three real runs moved into the shards of one group,
	// with their own clocks and summaries, as three processes write them.
	shardGroup = "nightly-7"
)

var (
	groupOnce    sync.Once
	groupDir     string
	groupWholeID string
	groupErr     error
)

// groupStore returns a directory store holding a streaming run with
// errors and goodput (groupWholeID), splitGroup made of its records and
// shardGroup made of three more real runs. It is made once per test
// binary; tests must copy it before changing it.
func groupStore(t *testing.T) string {
	t.Helper()
	groupOnce.Do(func() { groupDir, groupWholeID, groupErr = makeGroupStore() })
	if groupErr != nil {
		t.Fatal(groupErr)
	}
	return groupDir
}

func makeGroupStore() (dir, whole string, err error) {
	if dir, err = os.MkdirTemp("", "query-group-"); err != nil {
		return "", "", err
	}
	benchStores["group-fixture"] = dir // removed by TestMain
	srv, err := mockserver.New(mockserver.Config{Addr: "127.0.0.1:0", OutputTokens: 12, ErrorRate: 0.15, TTFT: time.Millisecond, ITL: 100 * time.Microsecond})
	if err != nil {
		return "", "", err
	}
	if err := srv.Start(context.Background()); err != nil {
		return "", "", err
	}
	defer srv.Close()
	bench := func(into string, requests int, seed uint64) (string, error) {
		cfg := runner.Defaults()
		cfg.Models, cfg.URL, cfg.UIType = []string{"mock-model"}, srv.URL(), "none"
		cfg.ArtifactDir, cfg.ArtifactDirSet = into, true
		cfg.RandomSeed, cfg.RandomSeedSet = seed, true
		cfg.ISLMean, cfg.OSLMean, cfg.NumDatasetEntries = 32, 12, 10
		cfg.Streaming, cfg.Concurrency, cfg.RequestCount = true, 3, requests
		cfg.Goodput = "time_to_first_token:1.5"
		cfg.RequestTimeout = 30 * time.Second
		if err := cfg.Validate(); err != nil {
			return "", err
		}
		res, err := runner.Run(context.Background(), &cfg, runner.Options{Version: "test"})
		if err != nil {
			return "", fmt.Errorf("run: %w", err)
		}
		return res.Files.RunID, nil
	}
	if whole, err = bench(dir, 45, 7); err != nil {
		return "", "", err
	}
	if err := splitRun(filepath.Join(dir, "runs", whole), filepath.Join(dir, "runs", splitGroup), 3); err != nil {
		return "", "", err
	}
	tmp, err := os.MkdirTemp("", "query-shards-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(tmp)
	for i := range 3 {
		id, err := bench(tmp, 12+i, uint64(100+i))
		if err != nil {
			return "", "", err
		}
		shard := filepath.Join(dir, "runs", shardGroup, "shards", fmt.Sprint(i))
		if err := os.MkdirAll(filepath.Dir(shard), 0o755); err != nil {
			return "", "", err
		}
		if err := os.Rename(filepath.Join(tmp, "runs", id), shard); err != nil {
			return "", "", err
		}
		if err := markShard(shard, shardGroup, i, 3, 0.25*float64(i)); err != nil {
			return "", "", err
		}
		if err := os.MkdirAll(filepath.Join(dir, "runs", shardGroup, "ready"), 0o755); err != nil {
			return "", "", err
		}
		if err := os.WriteFile(filepath.Join(dir, "runs", shardGroup, "ready", fmt.Sprint(i)), []byte(time.Now().UTC().Format(time.RFC3339Nano)+"\n"), 0o644); err != nil {
			return "", "", err
		}
	}
	return dir, whole, nil
}

// splitRun writes the records of the run in src round-robin into n shards
// of a group at dst, each with src's manifest, inputs and a shard object;
// the last shard's records are two segments rather than one file.
func splitRun(src, dst string, n int) error {
	data, err := os.ReadFile(filepath.Join(src, "profile_export.jsonl"))
	if err != nil {
		return err
	}
	lines := bytes.SplitAfter(bytes.TrimSpace(data), []byte("\n"))
	parts := make([][]byte, n)
	for i, l := range lines {
		parts[i%n] = append(parts[i%n], bytes.TrimRight(l, "\n")...)
		parts[i%n] = append(parts[i%n], '\n')
	}
	for i := range n {
		shard := filepath.Join(dst, "shards", fmt.Sprint(i))
		if err := os.MkdirAll(filepath.Join(shard, "records"), 0o755); err != nil {
			return err
		}
		for _, name := range []string{"manifest.json", "inputs.json"} {
			b, err := os.ReadFile(filepath.Join(src, name))
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(shard, name), b, 0o644); err != nil {
				return err
			}
		}
		files := map[string][]byte{"profile_export.jsonl": parts[i]}
		if i == n-1 {
			cut := bytes.IndexByte(parts[i], '\n') + 1
			files = map[string][]byte{"records/000001.jsonl": parts[i][:cut], "records/000002.jsonl": parts[i][cut:]}
		}
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(shard, name), b, 0o644); err != nil {
				return err
			}
		}
		if err := markShard(shard, filepath.Base(dst), i, n, 0); err != nil {
			return err
		}
	}
	return nil
}

// markShard adds the "shard" object to the manifest of the run in dir.
func markShard(dir, group string, index, count int, skewMS float64) error {
	path := filepath.Join(dir, "manifest.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // keeps profiling_start_ns exact
	if err := dec.Decode(&m); err != nil {
		return err
	}
	m["run_id"] = group + "/shards/" + fmt.Sprint(index)
	m["shard"] = map[string]any{"group": group, "index": index, "count": count, "start_at": nil, "clock_skew_ms": skewMS}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}
