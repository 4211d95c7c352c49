//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/query"
	"github.com/aiperf-go/aiperf/sink"
	"github.com/aiperf-go/aiperf/sink/opener"
)

// shardStore opens the MinIO store of AIPERF_TEST_S3_URL, or skips.
func shardStore(t *testing.T) (string, *sink.Store) {
	t.Helper()
	base := os.Getenv("AIPERF_TEST_S3_URL")
	if base == "" {
		if os.Getenv("AIPERF_TEST_REQUIRE_STORES") != "" {
			t.Fatal("AIPERF_TEST_S3_URL is not set: start MinIO with scripts/emulators.sh")
		}
		t.Skip("AIPERF_TEST_S3_URL not set: ./scripts/emulators.sh start minio; eval \"$(./scripts/emulators.sh env)\"")
	}
	store, err := sink.Open(context.Background(), base, opener.Mux())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return base, store
}

// shardProc starts one `aiperf profile` shard with the scheduler's env.
func shardProc(t *testing.T, bin string, env []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"profile"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Env = append(cmd.Env, "HF_HUB_OFFLINE=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// shardRecords reads the session numbers of shard i's profile_export.jsonl
// and its manifest's shard object; ok is false when it has no manifest.
func shardRecords(t *testing.T, store *sink.Store, group string, i int) (sessions []int, info *sink.ShardInfo, ok bool) {
	t.Helper()
	ctx := context.Background()
	prefix := fmt.Sprintf("runs/%s/shards/%d/", group, i)
	data, err := store.Bucket.ReadAll(ctx, prefix+"manifest.json")
	if err != nil {
		return nil, nil, false
	}
	var m sink.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	recs, err := store.Bucket.ReadAll(ctx, prefix+"profile_export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(recs)), "\n") {
		var r struct {
			Metadata struct {
				SessionNum int `json:"session_num"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, r.Metadata.SessionNum)
	}
	return sessions, m.Shard, true
}

// TestShardProcessesMinIO: three `aiperf profile` processes started as an
// AWS Batch array job and as a Cloud Run job (their env exactly as the
// schedulers set it), meeting at the barrier through MinIO, together send
// the single-machine plan's sessions, each shard's run complete under
// runs/<group>/shards/<i>/.
func TestShardProcessesMinIO(t *testing.T) {
	base, store := shardStore(t)
	bin := buildAiperf(t)
	mock := startMockServer(t, bin)
	for _, sched := range []struct {
		name  string
		env   func(i int, id string) []string
		group func(id string) string
	}{
		{"aws-batch", func(i int, id string) []string {
			return []string{fmt.Sprintf("AWS_BATCH_JOB_ARRAY_INDEX=%d", i), "AWS_BATCH_JOB_ARRAY_SIZE=3", fmt.Sprintf("AWS_BATCH_JOB_ID=%s:%d", id, i)}
		}, func(id string) string { return id }},
		{"cloud-run", func(i int, id string) []string {
			return []string{fmt.Sprintf("CLOUD_RUN_TASK_INDEX=%d", i), "CLOUD_RUN_TASK_COUNT=3", "CLOUD_RUN_EXECUTION=" + id, "CLOUD_RUN_JOB=bench"}
		}, func(id string) string { return id }},
	} {
		t.Run(sched.name, func(t *testing.T) {
			id := fmt.Sprintf("it-%s-%d", sched.name, time.Now().UnixNano())
			var procs []*exec.Cmd
			var outs []*bytes.Buffer
			for i := range 3 {
				cmd, out := shardProc(t, bin, sched.env(i, id), "-m", "mock-model", "--url", mock, "--tokenizer", "builtin",
					"--ui-type", "none", "--no-server-metrics", "--spool-dir", t.TempDir(), "--artifact-dir", base,
					"--request-rate", "40", "--request-count", "20", "--shard-barrier", "--shard-barrier-timeout", "60")
				procs, outs = append(procs, cmd), append(outs, out)
			}
			for i, p := range procs {
				if err := p.Wait(); err != nil {
					t.Fatalf("shard %d: %v\n%s", i, err, outs[i])
				}
			}
			var all []int
			for i := range 3 {
				s, info, ok := shardRecords(t, store, sched.group(id), i)
				if !ok {
					t.Fatalf("shard %d has no manifest", i)
				}
				if info == nil || info.Index != i || info.Count != 3 || info.StartAt == nil || info.ClockSkewMS == nil {
					t.Errorf("shard %d: shard info %+v", i, info)
				}
				all = append(all, s...)
			}
			slices.Sort(all)
			for k, s := range all {
				if s != k {
					t.Fatalf("the shards' sessions are %v, want 0..19", all)
				}
			}
			if len(all) != 20 {
				t.Fatalf("%d records, want 20", len(all))
			}
			checkGroupSummary(t, base, store, sched.group(id))
		})
	}
}

// checkGroupSummary ingests the store with aiperf-report's loader and
// checks the group's request latency statistics against the same ones
// computed here from the union of the shards' records: population std,
// percentiles by linear interpolation.
func checkGroupSummary(t *testing.T, base string, store *sink.Store, group string) {
	t.Helper()
	ctx := context.Background()
	var lat []float64
	for i := range 3 {
		data, err := store.Bucket.ReadAll(ctx, fmt.Sprintf("runs/%s/shards/%d/profile_export.jsonl", group, i))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var r struct {
				Metrics struct {
					RequestLatency struct{ Value float64 } `json:"request_latency"`
				} `json:"metrics"`
			}
			if err := json.Unmarshal(line, &r); err != nil {
				t.Fatal(err)
			}
			lat = append(lat, r.Metrics.RequestLatency.Value)
		}
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		x := p / 100 * float64(len(lat)-1)
		lo := int(x)
		if lo+1 >= len(lat) {
			return lat[lo]
		}
		return lat[lo] + (x-float64(lo))*(lat[lo+1]-lat[lo])
	}
	var sum, sq float64
	for _, v := range lat {
		sum += v
	}
	avg := sum / float64(len(lat))
	for _, v := range lat {
		sq += (v - avg) * (v - avg)
	}
	want := []float64{avg, pct(50), pct(99), math.Sqrt(sq / float64(len(lat)))}

	db, err := query.Open(ctx, filepath.Join(t.TempDir(), "report.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Ingest(ctx, base, store); err != nil {
		t.Fatal(err)
	}
	var records int
	if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM requests WHERE run_id = ?`, group).Scan(&records); err != nil || records != len(lat) {
		t.Errorf("the group has %d requests in the report (%v), want the shards' %d", records, err, len(lat))
	}
	got := make([]float64, 4)
	err = db.SQL().QueryRowContext(ctx, `SELECT avg, p50, p99, std FROM run_metrics WHERE run_id = ? AND tag = 'request_latency'`, group).
		Scan(&got[0], &got[1], &got[2], &got[3])
	if err != nil {
		t.Fatalf("the group's request_latency in the report: %v", err)
	}
	for k, name := range []string{"avg", "p50", "p99", "std"} {
		if math.Abs(got[k]-want[k]) > 1e-9*max(1, math.Abs(want[k])) {
			t.Errorf("group request_latency %s = %v, want %v over the union of the shards' records", name, got[k], want[k])
		}
	}
}

// TestShardKilledIsMissing: a shard killed (SIGKILL) mid-run leaves its
// ready object and no manifest; the other shards' runs are complete, with
// every record of their share.
func TestShardKilledIsMissing(t *testing.T) {
	base, store := shardStore(t)
	bin := buildAiperf(t)
	mock := startMockServer(t, bin)
	group := fmt.Sprintf("it-kill-%d", time.Now().UnixNano())
	var procs []*exec.Cmd
	var outs []*bytes.Buffer
	for i := range 3 {
		env := []string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i), "AIPERF_SHARD_COUNT=3", "AIPERF_RUN_GROUP=" + group}
		cmd, out := shardProc(t, bin, env, "-m", "mock-model", "--url", mock, "--tokenizer", "builtin",
			"--ui-type", "none", "--no-server-metrics", "--spool-dir", t.TempDir(), "--artifact-dir", base,
			"--request-rate", "20", "--request-count", "60", "--shard-barrier")
		procs, outs = append(procs, cmd), append(outs, out)
	}
	// Kill shard 2 once every shard is past the barrier and sending.
	deadline := time.Now().Add(60 * time.Second)
	for {
		marks, err := store.ListReady(context.Background(), group, false)
		if err == nil && len(marks) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("shards never ready: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(2500 * time.Millisecond)
	if err := procs[2].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = procs[2].Wait()
	for i := range 2 {
		if err := procs[i].Wait(); err != nil {
			t.Fatalf("shard %d: %v\n%s", i, err, outs[i])
		}
	}
	for i := range 2 {
		s, _, ok := shardRecords(t, store, group, i)
		if !ok {
			t.Fatalf("shard %d has no manifest", i)
		}
		if len(s) != 20 {
			t.Errorf("shard %d stored %d records, want its 20", i, len(s))
		}
		for _, n := range s {
			if n%3 != i {
				t.Errorf("shard %d sent session %d", i, n)
			}
		}
	}
	if _, _, ok := shardRecords(t, store, group, 2); ok {
		t.Error("the killed shard has a manifest")
	}
	if ok, _ := store.Bucket.Exists(context.Background(), fmt.Sprintf("runs/%s/ready/2", group)); !ok {
		t.Error("the killed shard's ready object is missing")
	}
}
