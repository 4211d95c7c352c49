package main

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/runner"
)

// scheduler is a batch scheduler's array-job environment: the variables it
// sets in each task of an array (see docs/fleet.md).
type scheduler struct {
	name     string
	index    string   // the task's index
	count    string   // the array's size; "" when the scheduler sets none
	groupIDs []string // the job's own id, first one set wins
}

// schedulers are the array-job environments recognised, in the order they
// are tried. Kubernetes sets only the index (the count is the Job's
// completions: pass --shard-count), and no job id: pass --run-group, e.g.
// from the downward API.
var schedulers = []scheduler{
	{name: "Kubernetes Indexed Job", index: "JOB_COMPLETION_INDEX"},
	{name: "AWS Batch array job", index: "AWS_BATCH_JOB_ARRAY_INDEX", count: "AWS_BATCH_JOB_ARRAY_SIZE", groupIDs: []string{"AWS_BATCH_JOB_ID"}},
	{name: "Cloud Run job", index: "CLOUD_RUN_TASK_INDEX", count: "CLOUD_RUN_TASK_COUNT", groupIDs: []string{"CLOUD_RUN_EXECUTION"}},
	{name: "Google Cloud Batch", index: "BATCH_TASK_INDEX", count: "BATCH_TASK_COUNT", groupIDs: []string{"BATCH_JOB_ID", "BATCH_JOB_UID"}},
}

// applyShardEnv completes the sharding settings of cfg from a scheduler's
// environment (lookup is os.LookupEnv in the binary): the shard index and
// count when the flags (or AIPERF_SHARD_*) did not give them, and, with more
// than one shard, the run group from the job's own id when --run-group did
// not. set names the flags given. A value that contradicts another (a flag
// against the scheduler, or two schedulers) is an error naming both.
func applyShardEnv(cfg *runner.Config, set map[string]bool, lookup func(string) (string, bool)) error {
	var found *scheduler
	idx, cnt := -1, 0
	for i := range schedulers {
		s := &schedulers[i]
		v, ok := lookup(s.index)
		if !ok || strings.TrimSpace(v) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return fmt.Errorf("%s=%q (%s) is not a shard index: it must be a whole number >= 0", s.index, v, s.name)
		}
		if found != nil && n != idx {
			return fmt.Errorf("%s=%d and %s=%d disagree on the shard index: unset the one that is not from this job's scheduler", found.index, idx, s.index, n)
		}
		if found == nil {
			found, idx = s, n
		}
		if c, ok := lookup(s.count); ok && s.count != "" && strings.TrimSpace(c) != "" {
			m, err := strconv.Atoi(strings.TrimSpace(c))
			if err != nil || m < 1 {
				return fmt.Errorf("%s=%q (%s) is not a shard count: it must be a whole number >= 1", s.count, c, s.name)
			}
			if cnt == 0 {
				cnt = m
			}
		}
	}
	if found == nil {
		return nil
	}
	if set["shard-index"] && cfg.ShardIndex != idx {
		return fmt.Errorf("--shard-index %d (or AIPERF_SHARD_INDEX) conflicts with %s=%d set by the %s: drop --shard-index to use the scheduler's index", cfg.ShardIndex, found.index, idx, found.name)
	}
	cfg.ShardIndex = idx
	switch {
	case cnt > 0 && set["shard-count"] && cfg.ShardCount != cnt:
		return fmt.Errorf("--shard-count %d (or AIPERF_SHARD_COUNT) conflicts with %s=%d set by the %s: drop --shard-count, or make it match the job's size", cfg.ShardCount, found.count, cnt, found.name)
	case cnt > 0:
		cfg.ShardCount = cnt
	case cfg.ShardCount == 0:
		return fmt.Errorf("%s=%d is set (%s) but not the shard count: set --shard-count (or AIPERF_SHARD_COUNT) to the job's number of tasks (completions)", found.index, idx, found.name)
	}
	if cfg.RunGroup == "" && cfg.ShardCount > 1 {
		cfg.RunGroup = jobGroup(found, lookup)
	}
	return nil
}

// jobGroup is the run group of a scheduler's job: its own id (AWS Batch's
// without the ":<index>" of an array child), else GitHub Actions' run id
// and attempt, else "" (then --run-group is required).
func jobGroup(s *scheduler, lookup func(string) (string, bool)) string {
	for _, name := range s.groupIDs {
		if v, ok := lookup(name); ok && v != "" {
			if name == "AWS_BATCH_JOB_ID" {
				v, _, _ = strings.Cut(v, ":")
			}
			return groupName(v)
		}
	}
	if id, ok := lookup("GITHUB_RUN_ID"); ok && id != "" {
		if a, ok := lookup("GITHUB_RUN_ATTEMPT"); ok && a != "" {
			id += "-" + a
		}
		return groupName(id)
	}
	return ""
}

var groupUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// groupName makes a job id usable as a run group: characters other than
// letters, digits, '.', '_' and '-' become '-'.
func groupName(id string) string {
	id = strings.Trim(groupUnsafe.ReplaceAllString(id, "-"), "-._")
	if len(id) > 128 {
		id = id[:128]
	}
	return id
}

// shardEnvFromProcess applies the process environment (see applyShardEnv).
func shardEnvFromProcess(cfg *runner.Config, set map[string]bool) error {
	return applyShardEnv(cfg, set, os.LookupEnv)
}

// timeValue is an RFC 3339 time flag (--start-at); empty means unset.
type timeValue struct{ t *time.Time }

func (v timeValue) String() string {
	if v.t == nil || v.t.IsZero() {
		return ""
	}
	return v.t.Format(time.RFC3339Nano)
}

func (v timeValue) Set(s string) error {
	s = strings.TrimSpace(s)
	if s == "" {
		*v.t = time.Time{}
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("%q is not an RFC 3339 time, e.g. 2026-11-26T04:00:00Z", s)
	}
	*v.t = t
	return nil
}
