package query

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gocloud.dev/gcerrors"

	"github.com/aiperf-go/aiperf/sink"
)

// A run group is one benchmark run by N stateless processes (shards). Each
// shard writes the layout of a whole run under runs/<group>/shards/<i>/,
// with its own manifest carrying a "shard" object; runs/<group>/ready/<i>
// are the start barrier's objects. A shard that died has no manifest, or
// no objects at all. The group loads as one run whose id is the group id.

// Run group statuses beyond the sink's run statuses.
const (
	// StatusPartial is a group with a shard missing (no manifest), failed
	// or interrupted: the records of the shards present are loaded.
	StatusPartial = "partial"
	// shardMissing is the status of a shard with no object at all.
	shardMissing = "missing"
)

// shardsDir is the folder of a group's prefix that holds its shards.
const shardsDir = "shards/"

// shardFacts is the "shard" object of a shard's manifest.
type shardFacts struct {
	Group       string          `json:"group"`
	Index       int             `json:"index"`
	Count       int             `json:"count"`
	StartAt     json.RawMessage `json:"start_at,omitempty"`
	ClockSkewMS *float64        `json:"clock_skew_ms"`
}

// shardManifest is a shard's manifest: a run manifest plus its shard.
type shardManifest struct {
	sink.Manifest
	Shard *shardFacts `json:"shard"`
}

// storedShard is one shard of a group as found in the store.
type storedShard struct {
	index int
	// objects are the shard's objects, named relative to its prefix.
	objects map[string]int64
	// manifest is nil for a shard that died (or never started).
	manifest     *shardManifest
	manifestJSON []byte
	// status is the manifest's, StatusInterrupted without a manifest but
	// with objects, or shardMissing with none.
	status string
	// records is the number of records loaded, set by the load.
	records int64
}

// missing reports a shard without a manifest.
func (s *storedShard) missing() bool { return s.manifest == nil }

// prefix is the shard's key prefix relative to runs/: <group>/shards/<i>.
func shardPrefix(group string, i int) string {
	return group + "/" + shardsDir + strconv.Itoa(i)
}

// isGroup reports whether a stored run's objects are a run group's: it has
// objects under shards/.
func isGroup(objects map[string]int64) bool {
	for n := range objects {
		if strings.HasPrefix(n, shardsDir) {
			return true
		}
	}
	return false
}

// readShards splits a group's objects by shard, reads the shards'
// manifests and returns every shard from 0 to the group's count - 1 (the
// largest count a manifest gives, else one past the largest index seen
// under shards/ or ready/), present or not.
func readShards(ctx context.Context, store *sink.Store, sr *storedRun) ([]*storedShard, error) {
	byIndex := map[int]map[string]int64{}
	maxIndex := -1
	for name, size := range sr.objects {
		dir, rest, _ := strings.Cut(name, "/")
		idx, rest, _ := strings.Cut(rest, "/")
		i, err := strconv.Atoi(idx)
		if err != nil || i < 0 || (dir != "shards" && dir != "ready") {
			continue
		}
		maxIndex = max(maxIndex, i)
		if dir == "shards" && rest != "" {
			if byIndex[i] == nil {
				byIndex[i] = map[string]int64{}
			}
			byIndex[i][rest] = size
		}
	}
	count := maxIndex + 1
	shards := map[int]*storedShard{}
	for i, objects := range byIndex {
		sh := &storedShard{index: i, objects: objects, status: sink.StatusInterrupted}
		shards[i] = sh
		if _, ok := objects[sink.ManifestName]; !ok {
			continue
		}
		key := sink.RunsPrefix + shardPrefix(sr.ID, i) + "/" + sink.ManifestName
		data, err := store.Bucket.ReadAll(ctx, key)
		if gcerrors.Code(err) == gcerrors.NotFound {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("shard %d: %w", i, err)
		}
		var m shardManifest
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("shard %d: manifest: %w", i, err)
		}
		sh.manifest, sh.manifestJSON, sh.status = &m, data, m.Status
		if m.Shard != nil {
			count = max(count, m.Shard.Count)
		}
	}
	out := make([]*storedShard, count)
	for i := range out {
		if out[i] = shards[i]; out[i] == nil {
			out[i] = &storedShard{index: i, status: shardMissing}
		}
	}
	return out, nil
}

// groupStatus judges a group from its shards: complete when every shard
// is, failed when every shard present failed and none is missing,
// interrupted when no shard has a manifest, else partial. reason names
// the shards that are not complete.
func groupStatus(shards []*storedShard) (status, reason string) {
	var present, complete, failed int
	var notes []string
	for _, sh := range shards {
		switch {
		case sh.missing():
			notes = append(notes, fmt.Sprintf("shard %d %s", sh.index, shardMissingWord(sh)))
			continue
		case sh.status == sink.StatusComplete:
			complete++
		case sh.status == sink.StatusFailed:
			failed++
			fallthrough
		default:
			note := fmt.Sprintf("shard %d %s", sh.index, sh.status)
			if r := sh.manifest.Reason; r != "" {
				note += ": " + r
			}
			notes = append(notes, note)
		}
		present++
	}
	reason = strings.Join(notes, "; ")
	switch {
	case complete == len(shards):
		return sink.StatusComplete, ""
	case present == 0:
		return sink.StatusInterrupted, reason
	case failed == present && present == len(shards):
		return sink.StatusFailed, reason
	}
	return StatusPartial, reason
}

// shardMissingWord says how a shard without a manifest is missing.
func shardMissingWord(sh *storedShard) string {
	if len(sh.objects) == 0 {
		return "missing"
	}
	return "missing (no manifest)"
}

// groupManifest is what runs.manifest holds for a group: its verdict and
// every shard's manifest (null for a missing one).
type groupManifest struct {
	RunID      string            `json:"run_id"`
	Status     string            `json:"status"`
	Reason     string            `json:"reason,omitempty"`
	Start      time.Time         `json:"start_time"`
	End        time.Time         `json:"end_time"`
	ShardCount int               `json:"shard_count"`
	Missing    []int             `json:"missing_shards"`
	Shards     []json.RawMessage `json:"shards"`
}

// groupRun fills a group's runs row from its shards: status and reason,
// the earliest start and latest end, the tool, config, labels and dataset
// of the first shard present, the shards' hostnames (comma-separated, in
// index order, each once) and their CPUs summed.
func groupRun(r *runRow, shards []*storedShard) {
	r.Status, r.Reason = groupStatus(shards)
	gm := groupManifest{RunID: r.ID, Status: r.Status, Reason: r.Reason, ShardCount: len(shards), Missing: []int{}}
	var hosts []string
	var first *shardManifest
	for _, sh := range shards {
		if sh.missing() {
			gm.Missing = append(gm.Missing, sh.index)
			gm.Shards = append(gm.Shards, json.RawMessage("null"))
			continue
		}
		m := sh.manifest
		gm.Shards = append(gm.Shards, sh.manifestJSON)
		if first == nil {
			first = m
		}
		if !m.Start.IsZero() && (r.Start.IsZero() || m.Start.Before(r.Start)) {
			r.Start = m.Start
		}
		if m.End.After(r.End) {
			r.End = m.End
		}
		if h := m.Host.Hostname; h != "" && !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
		r.CPUs += m.Host.CPUs
	}
	r.Hostname = strings.Join(hosts, ",")
	gm.Start, gm.End = r.Start, r.End
	r.Manifest, _ = json.Marshal(gm) // raw manifests and plain fields always marshal
	if first == nil {
		return
	}
	r.ToolName, r.ToolVersion, r.ToolCommit = first.Tool.Name, first.Tool.Version, first.Tool.Commit
	r.DatasetSHA256, r.Kernel = first.DatasetSHA256, first.Host.Kernel
	if len(first.Labels) > 0 {
		r.Labels, _ = json.Marshal(first.Labels) // a map of strings always marshals
	}
	if first.Config != nil {
		if b, err := json.Marshal(first.Config); err == nil {
			r.InputConfig = b
		}
	}
}

// facts returns a shard's start and end times and clock skew from its
// manifest, or zero times and nil.
func (s *storedShard) facts() (start, end time.Time, skew *float64) {
	if s.manifest == nil {
		return
	}
	if s.manifest.Shard != nil {
		skew = s.manifest.Shard.ClockSkewMS
	}
	return s.manifest.Start, s.manifest.End, skew
}
