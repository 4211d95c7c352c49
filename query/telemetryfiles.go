package query

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aiperf-go/aiperf/sink"
)

// Telemetry artifact names (AIPerf's; with --profile-export-prefix P they
// are P_gpu_telemetry.jsonl, P_server_metrics.jsonl, P_server_metrics.json)
// and the segment folders of a run that did not finish.
const (
	gpuTelemetryFile      = "gpu_telemetry_export.jsonl"
	serverMetricsFile     = "server_metrics_export.jsonl"
	serverMetricsJSONFile = "server_metrics_export.json"
	serverMetadataFile    = "server_metrics_metadata.json"
	// telemetryStartFile is written by aiperf-go before a run's first
	// request: the server's identity and its metrics' types, for runs
	// that never wrote their manifest or export.
	telemetryStartFile = "telemetry/start.json"
	gpuSegments        = "telemetry/gpu"
	serverSegments     = "telemetry/server"
)

// telemetryNames returns the names of a run's GPU telemetry, server
// metrics, and the documents that name server metric types (the export,
// then aiperf-go's metadata), as AIPerf names them under prefix.
func telemetryNames(prefix string) (gpu, server, export []string) {
	gpu, server, export = []string{gpuTelemetryFile}, []string{serverMetricsFile}, []string{serverMetricsJSONFile, serverMetadataFile, telemetryStartFile}
	if prefix != "" {
		gpu = append([]string{prefix + "_gpu_telemetry.jsonl"}, gpu...)
		server = append([]string{prefix + "_server_metrics.jsonl"}, server...)
		export = append([]string{prefix + "_server_metrics.json"}, export...)
	}
	return gpu, server, export
}

// planStoredTelemetry finds a stored run's telemetry and stages it as
// local files for p (the composed files of a finished run, or the
// segments of one that did not finish), reads the metric types of its
// server metrics export, and its manifest's provenance. cleanup removes
// what was staged; call it in every case.
func planStoredTelemetry(ctx context.Context, store *sink.Store, sr *storedRun, p *loadPlan) (cleanup func(), err error) {
	var cleanups []func()
	cleanup = func() {
		for _, c := range cleanups {
			c()
		}
	}
	key := func(name string) string { return sink.RunsPrefix + sr.ID + "/" + name }
	if sr.Manifest != nil {
		p.telemetry.prov = parseProvenance(sr.manifestJSON)
	} else if _, ok := sr.objects[telemetryStartFile]; ok {
		// An unfinished run: the identity stored before its first request.
		if data, err := store.Bucket.ReadAll(ctx, key(telemetryStartFile)); err == nil {
			p.telemetry.prov = parseProvenance(data)
		}
	}
	gpuNames, serverNames, exportNames := telemetryNames(p.run.Config.ExportPrefix)
	for _, part := range []struct {
		names []string
		dir   string
		dst   *[]string
	}{{gpuNames, gpuSegments, &p.telemetry.gpu}, {serverNames, serverSegments, &p.telemetry.server}} {
		objs := pickObject(sr.objects, part.names, part.dir)
		if len(objs) == 0 {
			continue
		}
		files, c, err := localFiles(ctx, store, sr.ID, objs)
		cleanups = append(cleanups, c)
		if err != nil {
			return cleanup, err
		}
		*part.dst = files
	}
	if len(p.telemetry.server) > 0 {
		for _, n := range exportNames {
			if _, ok := sr.objects[n]; ok && p.telemetry.types == nil {
				if data, err := store.Bucket.ReadAll(ctx, key(n)); err == nil {
					p.telemetry.types = parseMetricTypes(data)
				}
			}
		}
	}
	return cleanup, nil
}

// planDirTelemetry finds the telemetry of an AIPerf artifact directory
// for p, and folds the files' names, sizes and times into its content key
// (a run without telemetry keeps its key).
func planDirTelemetry(dir string, p *loadPlan) error {
	gpuNames, serverNames, exportNames := telemetryNames(p.run.Config.ExportPrefix)
	h := sha256.New()
	found := false
	pick := func(names []string) string {
		for _, n := range names {
			fi, err := os.Stat(filepath.Join(dir, n))
			if err == nil && fi.Mode().IsRegular() {
				fmt.Fprintf(h, "\x00%s\x00%d\x00%d", n, fi.Size(), fi.ModTime().UnixNano())
				found = true
				return filepath.Join(dir, n)
			}
		}
		return ""
	}
	if f := pick(gpuNames); f != "" {
		p.telemetry.gpu = []string{f}
	}
	if f := pick(serverNames); f != "" {
		p.telemetry.server = []string{f}
		for _, n := range exportNames {
			if export := pick([]string{n}); export != "" && p.telemetry.types == nil {
				data, err := os.ReadFile(export)
				if err != nil {
					return err
				}
				p.telemetry.types = parseMetricTypes(data)
			}
		}
	}
	if found {
		p.run.ContentKey += "+telemetry:" + hex.EncodeToString(h.Sum(nil))
	}
	return nil
}
