package main

import (
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/runner"
)

// TestApplyShardEnv: each scheduler's array environment, as it sets it,
// gives the shard index, count and group; explicit flags that agree are
// kept, and contradictions are errors naming both sides.
func TestApplyShardEnv(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		flags runner.Config // ShardIndex, ShardCount, RunGroup as given
		set   []string
		index int
		count int
		group string
		err   string
	}{
		{name: "no scheduler", env: map[string]string{}, index: 0, count: 0},
		{name: "Kubernetes with count", env: map[string]string{"JOB_COMPLETION_INDEX": "2"},
			flags: runner.Config{ShardCount: 4, RunGroup: "bench-1"}, set: []string{"shard-count", "run-group"}, index: 2, count: 4, group: "bench-1"},
		{name: "Kubernetes without count", env: map[string]string{"JOB_COMPLETION_INDEX": "2"}, err: "set --shard-count"},
		{name: "AWS Batch array", env: map[string]string{"AWS_BATCH_JOB_ARRAY_INDEX": "1", "AWS_BATCH_JOB_ARRAY_SIZE": "3",
			"AWS_BATCH_JOB_ID": "e5d6c8a0-2f3b-4a1e-9c1d-0123456789ab:1"}, index: 1, count: 3, group: "e5d6c8a0-2f3b-4a1e-9c1d-0123456789ab"},
		{name: "Cloud Run", env: map[string]string{"CLOUD_RUN_TASK_INDEX": "6", "CLOUD_RUN_TASK_COUNT": "7", "CLOUD_RUN_EXECUTION": "bench-job-x7k2p"},
			index: 6, count: 7, group: "bench-job-x7k2p"},
		{name: "Cloud Run single task stays a plain run", env: map[string]string{"CLOUD_RUN_TASK_INDEX": "0", "CLOUD_RUN_TASK_COUNT": "1", "CLOUD_RUN_EXECUTION": "e"},
			index: 0, count: 1, group: ""},
		{name: "Google Batch", env: map[string]string{"BATCH_TASK_INDEX": "0", "BATCH_TASK_COUNT": "2", "BATCH_JOB_UID": "j-123"},
			index: 0, count: 2, group: "j-123"},
		{name: "GitHub run id as group", env: map[string]string{"JOB_COMPLETION_INDEX": "0", "GITHUB_RUN_ID": "99", "GITHUB_RUN_ATTEMPT": "2"},
			flags: runner.Config{ShardCount: 2}, set: []string{"shard-count"}, index: 0, count: 2, group: "99-2"},
		{name: "flag agrees", env: map[string]string{"BATCH_TASK_INDEX": "1", "BATCH_TASK_COUNT": "2"},
			flags: runner.Config{ShardIndex: 1, ShardCount: 2, RunGroup: "g"}, set: []string{"shard-index", "shard-count", "run-group"}, index: 1, count: 2, group: "g"},
		{name: "index conflict", env: map[string]string{"BATCH_TASK_INDEX": "1", "BATCH_TASK_COUNT": "2"},
			flags: runner.Config{ShardIndex: 0}, set: []string{"shard-index"}, err: "--shard-index 0 (or AIPERF_SHARD_INDEX) conflicts with BATCH_TASK_INDEX=1"},
		{name: "count conflict", env: map[string]string{"CLOUD_RUN_TASK_INDEX": "1", "CLOUD_RUN_TASK_COUNT": "3"},
			flags: runner.Config{ShardCount: 4}, set: []string{"shard-count"}, err: "conflicts with CLOUD_RUN_TASK_COUNT=3"},
		{name: "schedulers disagree", env: map[string]string{"JOB_COMPLETION_INDEX": "1", "BATCH_TASK_INDEX": "2"}, err: "disagree"},
		{name: "bad index", env: map[string]string{"AWS_BATCH_JOB_ARRAY_INDEX": "x"}, err: "not a shard index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.flags
			set := map[string]bool{}
			for _, s := range tt.set {
				set[s] = true
			}
			err := applyShardEnv(&cfg, set, func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.ShardIndex != tt.index || cfg.ShardCount != tt.count || cfg.RunGroup != tt.group {
				t.Errorf("got index %d count %d group %q, want %d %d %q", cfg.ShardIndex, cfg.ShardCount, cfg.RunGroup, tt.index, tt.count, tt.group)
			}
		})
	}
}
