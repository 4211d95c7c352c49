package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"

	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/sink"
	"github.com/aiperf-go/aiperf/telemetry"
)

// manifestTelemetry is the manifest's telemetry field.
type manifestTelemetry struct {
	// Sources is every configured source's health, reachable or not.
	Sources []telemetry.Health `json:"sources"`
	// GPUCount is the number of distinct GPUs seen (0 without GPU
	// telemetry).
	GPUCount int `json:"gpu_count"`
	// WriteError says why samples were not stored; absent when all were.
	WriteError string `json:"write_error,omitempty"`
}

// telemetryStartName is the object, written before the first request,
// that holds what a reader of an unfinished run's telemetry segments
// needs: the server's identity and its metrics' types.
const telemetryStartName = "telemetry/start.json"

// writeTelemetryStart stores telemetry/start.json: {"server": identity,
// "metrics": {name: {"type": …}}}, the types of the server's first scrape
// (fams, nil without one) named as the raw records name them. The finished
// run's manifest and server metrics export say the same and more.
func (a *artifacts) writeTelemetryStart(ctx context.Context, identity *telemetry.Server, fams map[string]*dto.MetricFamily) error {
	type metric struct {
		Type telemetry.MetricType `json:"type"`
	}
	doc := struct {
		Server  *telemetry.Server `json:"server,omitempty"`
		Metrics map[string]metric `json:"metrics,omitempty"`
	}{Server: identity, Metrics: map[string]metric{}}
	for name, typ := range telemetry.MetricTypes(fams) {
		doc.Metrics[name] = metric{typ}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("telemetry start: %w", err)
	}
	return a.run.Put(ctx, telemetryStartName, b)
}

// writeTelemetry stores the server metrics files asked for by
// --server-metrics-formats (server_metrics_export.jsonl, the raw scrapes, is
// always composed from its stream), and hands the telemetry to the summary
// (info) and the manifest.
//
// Under schema 1.4 it also lists the GPU endpoints as AIPerf 0.13 does
// (gpuEndpoints14) and adds 0.13's energy-efficiency results
// (telemetry.EnergyEfficiency) to s.
func (r *run) writeTelemetry(ctx context.Context, arts *artifacts, res *telemetryResult, m *sink.Manifest, info *export.RunInfo, s *metrics.Summary) error {
	m.Server = res.Identity
	gpuCount := 0
	if res.GPU != nil {
		gpuCount = res.GPU.GPUCount()
		info.GPUTelemetry = res.GPU
	}
	if info.SchemaVersion == export.Schema14 {
		info.GPUEndpoints14 = r.gpuEndpoints14(res.Health)
		if res.GPU != nil && s != nil {
			s.Results = append(s.Results, telemetry.EnergyEfficiency(res.GPU.Totals(), s, r.cfg.EffectiveConcurrency())...)
		}
	}
	if len(res.Health) > 0 {
		m.Telemetry = manifestTelemetry{Sources: res.Health, GPUCount: gpuCount, WriteError: res.WriteError}
	}
	info.TelemetryHealth = res.Health
	info.ShowGPUTelemetry = r.cfg.ShowGPUTelemetry()
	if note := telemetryNote(res.Health); note != "" {
		info.Notes = append(info.Notes, note)
	}
	if res.GPU != nil {
		info.Notes = append(info.Notes, "GPU Telemetry: "+arts.where(gpuTelemetryName))
	}
	if res.Server == nil || !res.Server.HasData() {
		return nil
	}
	if slices.Contains(export.ServerMetricsFiles(r.cfg.ServerMetricsFormats), export.ServerMetricsJSONFile) {
		info.Notes = append(info.Notes, "Server Metrics: "+arts.where(export.ServerMetricsJSONFile))
	}
	// Stored after an interrupt too, as the records are: ctx is the run's
	// store context (see storeContext, finish).
	ctx, cancel := context.WithTimeout(ctx, r.cfg.UploadGrace)
	defer cancel()
	var errs []error
	put := func(name string, write func(io.Writer) error) {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			return
		}
		errs = append(errs, arts.run.Put(ctx, name, b.Bytes()))
	}
	for _, name := range export.ServerMetricsFiles(r.cfg.ServerMetricsFormats) {
		switch name {
		case export.ServerMetricsJSONFile:
			put(name, func(w io.Writer) error { return export.WriteServerMetricsJSON(w, res.Server, info) })
		case export.ServerMetricsCSVFile:
			put(name, func(w io.Writer) error { return export.WriteServerMetricsCSV(w, res.Server, info) })
		}
	}
	put(export.ServerMetricsMetadataFile, func(w io.Writer) error { return export.WriteServerMetricsMetadata(w, res.Server) })
	return errors.Join(errs...)
}

// telemetryNote is the console's line on the telemetry sources: how many
// of each kind were reachable, and the scrapes, failures and drops of the
// polled ones; "" when none was configured.
func telemetryNote(health []telemetry.Health) string {
	var parts []string
	for _, k := range []struct {
		kind telemetry.Kind
		name string
	}{{telemetry.KindServer, "server metrics"}, {telemetry.KindGPU, "GPU"}} {
		var n, reachable int
		var scrapes, failures, dropped int64
		for _, h := range health {
			if h.Kind != k.kind {
				continue
			}
			n++
			if h.Reachable {
				reachable++
				scrapes, failures, dropped = scrapes+h.Scrapes, failures+h.Failures, dropped+h.Dropped
			}
		}
		if n == 0 {
			continue
		}
		p := fmt.Sprintf("%s %d/%d sources reachable", k.name, reachable, n)
		if reachable > 0 {
			p += fmt.Sprintf(" (%d scrapes, %d failed, %d dropped)", scrapes, failures, dropped)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return ""
	}
	return "Telemetry: " + strings.Join(parts, "; ")
}

// gpuEndpoints14 lists the GPU sources of health (in configuration order:
// the default DCGM endpoints, then --gpu-telemetry's) as AIPerf 0.13's
// telemetry manager does: endpoints_successful are the reachable ones;
// endpoints_configured are the URLs the user named that are not defaults,
// then the reachable defaults, so that an absent default endpoint is not
// listed; with the local collector (NVML), its source, reachable or not.
func (r *run) gpuEndpoints14(health []telemetry.Health) export.GPUEndpointLists {
	var out export.GPUEndpointLists
	var defaults, reachableDefaults []string
	for _, d := range r.cfg.DCGMEndpoints {
		if u, err := telemetry.MetricsURL(d); err == nil {
			defaults = append(defaults, u)
		}
	}
	plan, _ := r.cfg.gpuTelemetryPlan()
	for _, h := range health {
		if h.Kind != telemetry.KindGPU {
			continue
		}
		if plan.collector == gpuNVML {
			out.Configured = append(out.Configured, h.Source)
		}
		if !h.Reachable {
			continue
		}
		out.Successful = append(out.Successful, h.Source)
		if slices.Contains(defaults, h.Source) {
			reachableDefaults = append(reachableDefaults, h.Source)
		}
	}
	if plan.collector == gpuNVML {
		return out
	}
	for _, u := range plan.urls {
		if !slices.Contains(defaults, u) && !slices.Contains(out.Configured, u) {
			out.Configured = append(out.Configured, u)
		}
	}
	out.Configured = append(out.Configured, reachableDefaults...)
	return out
}
