package query

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the objects lists of the fixture manifests in testdata")

// The runs of testdata/telemetry-store (written by hand, see
// TestTelemetryFixtureManifests): a finished run with the AIPerf GPU
// telemetry fixture, server metrics and a manifest with the server and
// telemetry fields; a run without a manifest whose records and telemetry
// are segments; and an older run whose manifest has neither field.
const (
	telemetryRun     = "20251107T213850Z-7e1e0001"
	segmentsRun      = "20251107T214000Z-7e1e0002"
	oldManifestRun   = "20251107T220000Z-7e1e0003"
	telemetryFixture = "testdata/telemetry-store"
)

// telemetryStore returns a copy of the telemetry fixture store.
func telemetryStore(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	copyDir(t, telemetryFixture, dir)
	return dir
}

// ingestTelemetryStore loads a copy of the fixture store into a new
// database.
func ingestTelemetryStore(t *testing.T) *DB {
	t.Helper()
	db := openTestDB(t)
	dir := telemetryStore(t)
	st, err := db.Ingest(context.Background(), "", openStore(t, dir))
	if err != nil || st.RunsLoaded != 3 {
		t.Fatalf("ingest %+v: %v", st, err)
	}
	return db
}

// TestTelemetryFixtureManifests: every fixture manifest lists the run's
// objects with their sizes and hashes, as the runner's do (ingest finds a
// finished run's files through them). With -update it rewrites the lists.
func TestTelemetryFixtureManifests(t *testing.T) {
	runs, err := os.ReadDir(filepath.Join(telemetryFixture, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		dir := filepath.Join(telemetryFixture, "runs", r.Name())
		path := filepath.Join(dir, "manifest.json")
		data, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		type object struct {
			Name   string `json:"name"`
			Size   int64  `json:"size"`
			SHA256 string `json:"sha256"`
		}
		var want []object
		err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() == "manifest.json" {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			sum := sha256.Sum256(b)
			want = append(want, object{filepath.ToSlash(rel), int64(len(b)), hex.EncodeToString(sum[:])})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		var got []object
		_ = json.Unmarshal(m["objects"], &got)
		if slices.Equal(got, want) {
			continue
		}
		if !*update {
			t.Errorf("%s lists %v, the run holds %v (go test -run TestTelemetryFixtureManifests -update)", path, got, want)
			continue
		}
		// Rewrite only the objects list, keeping the order of the fields.
		list, _ := json.Marshal(want)
		i := bytes.Index(data, []byte(`"objects":`))
		j := bytes.LastIndexByte(data, '}')
		if i < 0 || j < i {
			t.Fatalf("%s: no objects field at the end", path)
		}
		var out bytes.Buffer
		out.Write(data[:i])
		out.WriteString(`"objects": `)
		if err := json.Indent(&out, list, "  ", "  "); err != nil {
			t.Fatal(err)
		}
		out.WriteString("\n}\n")
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTelemetryFixtureIsAIPerfs: the finished run's GPU telemetry is the
// AIPerf fixture (../shared/spec), when the checkout has it.
func TestTelemetryFixtureIsAIPerfs(t *testing.T) {
	aiperf, err := os.ReadFile(filepath.Join("..", "..", "shared", "spec", "fixtures", "qwen_concurrency1", gpuTelemetryFile))
	if os.IsNotExist(err) {
		t.Skip("no ../shared/spec")
	}
	if err != nil {
		t.Fatal(err)
	}
	ours, err := os.ReadFile(filepath.Join(telemetryFixture, "runs", telemetryRun, gpuTelemetryFile))
	if err != nil || !bytes.Equal(ours, aiperf) {
		t.Fatalf("testdata differs from AIPerf's fixture (%v)", err)
	}
}
