package sink

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// ManifestSchemaVersion is the version of the storage layout and manifest
// documented in docs/storage.md.
const ManifestSchemaVersion = "1"

// ManifestName is the object written last in every finished run.
const ManifestName = "manifest.json"

// Run statuses. A run without a manifest reads as StatusInterrupted.
const (
	StatusComplete    = "complete"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
)

// Manifest describes a finished run. It is written last: its presence means
// every object it lists was stored.
type Manifest struct {
	SchemaVersion string    `json:"schema_version"`
	RunID         string    `json:"run_id"`
	Status        string    `json:"status"`
	Reason        string    `json:"reason,omitempty"`
	Start         time.Time `json:"start_time"`
	End           time.Time `json:"end_time"`
	// ProfilingStartNS is when the profiling phase began, wall-clock Unix
	// ns on the records' clock (0, omitted, when it never began): the start
	// of the observation window over which AIPerf 0.13's throughputs and
	// sweep-line metrics are computed, which a run group's summary
	// recomputed from its shards' records needs.
	ProfilingStartNS int64 `json:"profiling_start_ns,omitempty"`
	// ArtifactSchema is the layout of the run's artifact files
	// (--output-schema: "1.0" or "1.4"); omitted by runs from before it
	// was recorded, which wrote 1.0.
	ArtifactSchema string `json:"artifact_schema,omitempty"`
	Tool           Tool   `json:"tool"`
	Host           Host   `json:"host"`
	// Config is the effective configuration, secrets redacted.
	Config any `json:"config"`
	// Labels are the run's user-given key=value tags (--label); omitted
	// when there are none.
	Labels map[string]string `json:"labels,omitempty"`
	// Validity is the runner's verdict on its own schedule (lateness,
	// achieved rate, client CPU, degraded with reasons); omitted by tools
	// that do not judge it.
	Validity any `json:"validity,omitempty"`
	// Server describes the measured server (software, version, models,
	// info metrics; telemetry.Server); omitted when it was not asked.
	Server any `json:"server,omitempty"`
	// Telemetry reports the telemetry sources (each one's health) and the
	// GPU count; omitted when no telemetry was configured.
	Telemetry any `json:"telemetry,omitempty"`
	// DatasetSHA256 hashes the exact payloads of the dataset (inputs.json).
	// Shard places a shard's run in its group (see ShardInfo); omitted
	// for a run that is not a shard.
	Shard         *ShardInfo  `json:"shard,omitempty"`
	DatasetSHA256 string      `json:"dataset_sha256"`
	Storage       StorageInfo `json:"storage"`
	Objects       []Object    `json:"objects"`
}

// Tool identifies the binary that ran.
type Tool struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"go_version"`
}

// Host describes the machine that ran the benchmark.
type Host struct {
	Hostname string `json:"hostname"`
	CPUs     int    `json:"cpus"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	Kernel   string `json:"kernel,omitempty"`
}

// StorageInfo reports how record delivery went.
type StorageInfo struct {
	Retries int64       `json:"retries"`
	Records StreamStats `json:"records"`
}

// HostFacts returns the facts of this machine; what cannot be read is left
// empty.
func HostFacts() Host {
	h := Host{CPUs: runtime.NumCPU(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	h.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	return h
}

// WriteManifest stores m as the run's manifest (create-only), listing every
// object stored so far. Call it last.
func (r *Run) WriteManifest(ctx context.Context, m *Manifest) error {
	m.SchemaVersion = ManifestSchemaVersion
	m.RunID = r.ID
	m.Storage.Retries = r.Retries()
	m.Objects = r.Objects()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "<redacted>" readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	return r.Put(ctx, ManifestName, buf.Bytes())
}

// RunSummary is what a reader finds about one run in a store.
type RunSummary struct {
	ID string
	// Status is the manifest's, or StatusInterrupted when there is none.
	Status string
	// Manifest is nil for an interrupted run.
	Manifest *Manifest
}

// ListRuns returns every run in the store, oldest first (run ids sort by
// start time).
func (s *Store) ListRuns(ctx context.Context) ([]RunSummary, error) {
	var out []RunSummary
	it := s.Bucket.List(&blob.ListOptions{Prefix: RunsPrefix, Delimiter: "/"})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		if !obj.IsDir {
			continue
		}
		id := strings.TrimSuffix(strings.TrimPrefix(obj.Key, RunsPrefix), "/")
		rs, err := s.ReadRun(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, rs)
	}
	return out, nil
}

// ReadRun reads one run's manifest; a run without one is interrupted.
func (s *Store) ReadRun(ctx context.Context, id string) (RunSummary, error) {
	rs := RunSummary{ID: id, Status: StatusInterrupted}
	data, err := s.Bucket.ReadAll(ctx, RunsPrefix+id+"/"+ManifestName)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return rs, nil
	}
	if err != nil {
		return rs, fmt.Errorf("run %s: %w", id, err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return rs, fmt.Errorf("run %s: manifest: %w", id, err)
	}
	rs.Status, rs.Manifest = m.Status, &m
	return rs, nil
}
