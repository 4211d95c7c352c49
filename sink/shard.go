package sink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// A shard group is one benchmark run by several processes (shards), each
// writing the complete layout of a run under its own prefix:
//
//	runs/<group>/ready/<i>            written when shard i is ready to start
//	runs/<group>/shards/<i>/...       shard i's run (manifest.json last)
//
// The layout is a contract with aiperf-report, which reads a group as one
// run; see docs/fleet.md.

// ShardInfo is the "shard" object of a shard's manifest.
type ShardInfo struct {
	// Group is the run group id the shards share.
	Group string `json:"group"`
	// Index is this shard's index in [0, Count).
	Index int `json:"index"`
	// Count is how many shards run the benchmark.
	Count int `json:"count"`
	// StartAt is the wall-clock time (this shard's clock) at which its
	// profiling schedule started: --start-at, or the barrier's release;
	// nil when the shards had no common start.
	StartAt *time.Time `json:"start_at"`
	// ClockSkewMS is the spread of the shards' clocks as this shard saw
	// it when it started (see docs/fleet.md for the estimate); nil when
	// no ready object could be measured.
	ClockSkewMS *float64 `json:"clock_skew_ms"`
	// StoreOffsetMS estimates the store's clock minus this shard's clock
	// (plus the ready object's upload time); nil when not measured.
	StoreOffsetMS *float64 `json:"store_offset_ms,omitempty"`
	// Ready lists the shard indices whose ready objects this shard saw
	// when it started.
	Ready []int `json:"ready,omitempty"`
}

// validGroup reports whether group matches ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$:
// one key segment. Checked by hand: that regexp took ~0.3 ms of every
// start-up to compile (the bounded repeat expands into 127 copies).
func validGroup(group string) bool {
	if len(group) == 0 || len(group) > 128 {
		return false
	}
	for i := 0; i < len(group); i++ {
		c := group[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// CheckGroup returns an error when group cannot name a run group: empty,
// longer than 128 characters, or holding other than letters, digits, '.',
// '_' and '-' (it becomes one key segment of every shard's objects).
func CheckGroup(group string) error {
	if !validGroup(group) {
		return fmt.Errorf("run group %q is not valid: use 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit", group)
	}
	return nil
}

// ShardRunID is the run id of shard index of group: "<group>/shards/<i>",
// so that the run's prefix is runs/<group>/shards/<i>/ and recovery from a
// spool (which stores the id) finds the same prefix.
func ShardRunID(group string, index int) string {
	return group + "/shards/" + strconv.Itoa(index)
}

// NewShardRun returns shard index's run of group in the store: a Run like
// any other, under runs/<group>/shards/<index>/.
func (s *Store) NewShardRun(group string, index int) *Run {
	return s.NewRun(ShardRunID(group, index))
}

// SpoolName returns a run id usable as one directory name: the id of a
// shard run with its '/' replaced by '+'.
func SpoolName(id string) string { return strings.ReplaceAll(id, "/", "+") }

// ReadyMark is one shard's ready object as listed.
type ReadyMark struct {
	Index int
	// ModTime is the store's modification time of the object.
	ModTime time.Time
	// Written is the time the shard wrote in it, by its own clock.
	Written time.Time
}

// readyPrefix is the prefix of group's ready objects.
func readyPrefix(group string) string { return RunsPrefix + group + "/ready/" }

// PutReady writes shard index's ready object of group, create-only, holding
// written (the shard's clock when it wrote it) in RFC 3339. An object
// already there (a retried shard) is kept and counts as written.
func (s *Store) PutReady(ctx context.Context, group string, index int, written time.Time) error {
	key := readyPrefix(group) + strconv.Itoa(index)
	body := written.UTC().Format(time.RFC3339Nano) + "\n"
	err := s.Bucket.Upload(ctx, key, strings.NewReader(body), &blob.WriterOptions{IfNotExist: true, ContentType: "text/plain; charset=utf-8"})
	if err != nil && gcerrors.Code(err) != gcerrors.FailedPrecondition {
		return fmt.Errorf("ready %s: %w", key, err)
	}
	return nil
}

// ListReady returns the ready objects of group, by index. With read, it
// also reads the time each holds (Written); objects whose name is not an
// index, or whose content does not parse, are then skipped.
func (s *Store) ListReady(ctx context.Context, group string, read bool) ([]ReadyMark, error) {
	prefix := readyPrefix(group)
	it := s.Bucket.List(&blob.ListOptions{Prefix: prefix})
	var out []ReadyMark
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", prefix, err)
		}
		i, err := strconv.Atoi(strings.TrimPrefix(obj.Key, prefix))
		if err != nil || i < 0 {
			continue
		}
		if !read {
			out = append(out, ReadyMark{Index: i, ModTime: obj.ModTime})
			continue
		}
		data, err := s.Bucket.ReadAll(ctx, obj.Key)
		if gcerrors.Code(err) == gcerrors.NotFound {
			continue // listed in passing (a temporary object)
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", obj.Key, err)
		}
		written, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(data)))
		if err != nil {
			continue
		}
		out = append(out, ReadyMark{Index: i, ModTime: obj.ModTime, Written: written})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Index < out[b].Index })
	return out, nil
}
