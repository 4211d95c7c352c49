package runner

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/record"
	"github.com/aiperf-go/aiperf/telemetry"
)

// Telemetry stream and file names in the run's store (docs/storage.md).
const (
	gpuTelemetryName  = "gpu_telemetry_export.jsonl"
	serverMetricsName = "server_metrics_export.jsonl"
	gpuTelemetryDir   = "telemetry/gpu"
	serverMetricsDir  = "telemetry/server"
)

// probeTimeout bounds the start-up probe of the telemetry sources and the
// server's identity answers, as AIPerf's reachability timeout.
const probeTimeout = 5 * time.Second

// telemetryRun owns a run's telemetry: the monitor polling every reachable
// source, the streams its samples go to, and the accumulators summarising
// them. Its consumer runs on the monitor's goroutine; the runner only
// marks the profiling window and finishes it.
type telemetryRun struct {
	log    *slog.Logger
	clock  *record.Clock
	mon    *telemetry.Monitor
	probed []telemetry.Health // every configured source, as the probe found it
	// collectors are every configured collector, closed by finish when
	// they hold resources (NVML).
	collectors []telemetry.Collector
	// transport is the scrapes' connection pool, closed by finish.
	transport *http.Transport

	server    *telemetry.ServerMetrics // nil without a reachable server source
	gpu       *telemetry.GPUStats      // nil without a reachable GPU source
	serverOut *recordStream
	gpuOut    *recordStream
	dedup     *telemetry.ServerDedup
	buf       []byte
	// schema14 writes the GPU readings in AIPerf 0.13's line
	// (GPUReading.AppendJSON14), else in 0.8's.
	schema14 bool
	// writeErr is the first stream write error; the consumer sets it, and
	// finish reads it after the monitor closed.
	writeErr error

	identity *telemetry.Server
}

// telemetryResult is what a run's telemetry produced, for its artifacts.
type telemetryResult struct {
	// Health is every configured source's, in configuration order.
	Health   []telemetry.Health
	Server   *telemetry.ServerMetricsSummary // nil without server metrics
	GPU      *telemetry.GPUSummary           // nil without GPU telemetry
	Identity *telemetry.Server
	// WriteError is why samples could not be handed to their stream, ""
	// when all were.
	WriteError string
}

// telemetryCollectors builds the configured collectors: the server's own
// /metrics and --server-metrics endpoints, then GPU telemetry (DCGM
// endpoints, or NVML). NVML without a driver is one warning, not an error.
func (r *run) telemetryCollectors(client *http.Client) []telemetry.Collector {
	var cs []telemetry.Collector
	if !r.cfg.NoServerMetrics {
		var urls []string
		for _, raw := range r.cfg.BaseURLs() { // every --url's server
			if base, err := NormalizeURL(raw); err == nil {
				if u, err := telemetry.MetricsURL(base.String()); err == nil && !slices.Contains(urls, u) {
					urls = append(urls, u)
				}
			}
		}
		for _, s := range r.cfg.ServerMetrics {
			if u, err := telemetry.MetricsURL(s); err == nil && !slices.Contains(urls, u) {
				urls = append(urls, u)
			}
		}
		for _, u := range urls {
			cs = append(cs, telemetry.NewPrometheus(u, client))
		}
	}
	if r.cfg.NoGPUTelemetry {
		return cs
	}
	plan, _ := r.cfg.gpuTelemetryPlan()
	if plan.collector == gpuNVML {
		c, err := telemetry.NewNVML()
		if err != nil {
			r.log.Warn("GPU telemetry: NVML unavailable; the run goes on without it", "reason", err)
			return cs
		}
		return append(cs, c)
	}
	var urls []string
	for _, s := range append(slices.Clone(r.cfg.DCGMEndpoints), plan.urls...) {
		if u, err := telemetry.MetricsURL(s); err == nil && !slices.Contains(urls, u) {
			urls = append(urls, u)
		}
	}
	for _, u := range urls {
		cs = append(cs, telemetry.NewDCGM(u, client))
	}
	return cs
}

// startTelemetry probes the configured sources, asks the server who it is,
// opens the telemetry streams and starts polling the reachable sources.
// header carries the run's credentials for the identity requests. With
// nothing reachable it polls nothing, and finish reports the probe.
func (r *run) startTelemetry(ctx context.Context, arts *artifacts, header http.Header) (*telemetryRun, error) {
	tr := telemetryTransport()
	tr.TLSClientConfig = r.tls
	client := &http.Client{Transport: tr}
	cs := r.telemetryCollectors(client)
	t := &telemetryRun{log: r.log, clock: r.clock, collectors: cs, transport: tr,
		schema14: r.cfg.OutputSchema == export.Schema14}
	var wg sync.WaitGroup
	wg.Add(1)
	var fams map[string]*dto.MetricFamily
	go func() {
		defer wg.Done()
		t.identity, fams = r.identify(ctx, client, header)
	}()
	reachable, probed := telemetry.Probe(ctx, cs, probeTimeout)
	wg.Wait()
	t.probed = probed
	if err := arts.writeTelemetryStart(ctx, t.identity, fams); err != nil {
		return nil, err
	}
	explicit := r.explicitTelemetryURLs()
	for _, h := range probed {
		if h.Reachable {
			continue
		}
		// Only the sources the user named are worth a warning: the
		// defaults (the server's /metrics, DCGM's ports) are often absent.
		log := r.log.Debug
		if slices.Contains(explicit, h.Source) {
			log = r.log.Warn
		}
		log("telemetry source unreachable; the run goes on without it", "kind", h.Kind, "source", h.Source, "error", h.LastError)
	}
	var sources []telemetry.Source
	var err error
	for _, c := range reachable {
		switch c.Kind() {
		case telemetry.KindServer:
			sources = append(sources, telemetry.Source{Collector: c, Interval: r.cfg.ServerMetricsInterval})
			if t.server == nil {
				// Counter rate statistics come from the timeslices, as in
				// AIPerf: only with --slice-duration.
				t.server = telemetry.NewServerMetrics(telemetry.ServerMetricsOptions{SliceDuration: r.cfg.SliceDuration})
				t.dedup = telemetry.NewServerDedup()
				if t.serverOut, err = arts.openStream(serverMetricsName, serverMetricsDir); err != nil {
					return nil, err
				}
			}
		case telemetry.KindGPU:
			sources = append(sources, telemetry.Source{Collector: c, Interval: r.cfg.GPUInterval})
			if t.gpu == nil {
				t.gpu = telemetry.NewGPUStats()
				if t.gpuOut, err = arts.openStream(gpuTelemetryName, gpuTelemetryDir); err != nil {
					return nil, err
				}
			}
		}
	}
	if len(sources) > 0 {
		t.mon = telemetry.Start(ctx, sources, t.consume, telemetry.Options{Clock: r.clock, Timeout: probeTimeout})
		// The baseline: one sample of every source before the first
		// request, whatever the goroutines' scheduling.
		t.mon.CollectNow(ctx)
	}
	return t, nil
}

// explicitTelemetryURLs are the telemetry endpoints named by
// --server-metrics and --gpu-telemetry, normalised.
func (r *run) explicitTelemetryURLs() []string {
	plan, _ := r.cfg.gpuTelemetryPlan()
	urls := slices.Clone(plan.urls)
	for _, s := range r.cfg.ServerMetrics {
		if u, err := telemetry.MetricsURL(s); err == nil {
			urls = append(urls, u)
		}
	}
	return urls
}

// identify asks the server for its identity, with its first metrics scrape
// for the info metrics when server metrics are on; it returns that scrape
// too (nil without one).
func (r *run) identify(ctx context.Context, client *http.Client, header http.Header) (*telemetry.Server, map[string]*dto.MetricFamily) {
	base, err := NormalizeURL(r.cfg.BaseURLs()[0]) // the first --url's server
	if err != nil {
		return nil, nil
	}
	var fams map[string]*dto.MetricFamily
	if !r.cfg.NoServerMetrics {
		if u, err := telemetry.MetricsURL(base.String()); err == nil {
			sctx, cancel := context.WithTimeout(ctx, probeTimeout)
			fams, _ = (&telemetry.Scraper{URL: u, Client: client}).Scrape(sctx)
			cancel()
		}
	}
	return telemetry.Identify(ctx, client, base.String(), header, fams, probeTimeout), fams
}

// telemetryTransport is the telemetry's own connection pool: scrapes never
// take a connection the benchmark's requests are measured on, and a fault
// injected into the run's transport does not reach them.
func telemetryTransport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 4
	return tr
}

// consume streams one sample to the store and feeds its accumulator. It
// runs on the monitor's consumer goroutine.
func (t *telemetryRun) consume(s telemetry.Sample) {
	t.buf = t.buf[:0]
	var out *recordStream
	switch s.Kind {
	case telemetry.KindServer:
		t.server.Add(s)
		t.buf = t.dedup.Append(t.buf, s)
		out = t.serverOut
	case telemetry.KindGPU:
		t.gpu.Add(s)
		for _, g := range s.GPUs {
			// Stamped on the run's clock, as the records are (when the
			// answer arrived, as AIPerf stamps it), so SQL can join them.
			g.TimestampNS = s.TimeNS + s.LatencyNS
			if t.schema14 {
				t.buf = g.AppendJSON14(t.buf)
			} else {
				t.buf = g.AppendJSON(t.buf)
			}
			t.buf = append(t.buf, '\n')
		}
		out = t.gpuOut
	}
	t.write(out)
}

// write hands the buffered lines to out, keeping the first error.
func (t *telemetryRun) write(out *recordStream) {
	if len(t.buf) == 0 || out == nil {
		return
	}
	if _, err := out.stream.Write(t.buf); err != nil && t.writeErr == nil {
		t.writeErr = err
	}
}

// profilingStarted marks the start of the profiling window (monotonic ns
// of the run's clock).
func (t *telemetryRun) profilingStarted(ns int64) {
	if t == nil {
		return
	}
	wall := t.clock.Wall(ns)
	if t.server != nil {
		t.server.Start(wall)
	}
	if t.gpu != nil {
		t.gpu.Start(wall)
		// AIPerf 0.13 starts polling the GPUs here, at once: the window's
		// first sample is at its start, the next one interval later.
		t.mon.Restart(telemetry.KindGPU)
	}
}

// finish ends the profiling window at ns, takes a final sample of every
// source, stops polling and returns what the telemetry produced. The
// streams stay open for the artifacts to close and compose.
func (t *telemetryRun) finish(ctx context.Context, ns int64) (*telemetryResult, error) {
	if t == nil {
		return nil, nil
	}
	wall := t.clock.Wall(ns)
	if t.server != nil {
		t.server.End(wall)
	}
	if t.gpu != nil {
		t.gpu.End(wall)
	}
	res := &telemetryResult{Health: t.probed, Identity: t.identity}
	defer t.closeCollectors()
	if t.mon == nil {
		return res, nil
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeTimeout)
	t.mon.CollectNow(fctx)
	cancel()
	health := t.mon.Close()
	// The monitor's consumer has stopped: its state is ours now.
	if t.dedup != nil {
		t.buf = t.dedup.Flush(t.buf[:0])
		t.write(t.serverOut)
	}
	// The polled sources' health replaces their probe's.
	for _, h := range health {
		for i := range res.Health {
			if res.Health[i].Source == h.Source && res.Health[i].Kind == h.Kind {
				h.Reachable = true
				res.Health[i] = h
			}
		}
	}
	if t.server != nil {
		res.Server = t.server.Summary()
	}
	if t.gpu != nil {
		res.GPU = t.gpu.Summary()
	}
	return res, t.writeErr
}

// closeCollectors releases the collectors that hold resources, and the
// scrapes' idle connections.
func (t *telemetryRun) closeCollectors() {
	t.transport.CloseIdleConnections()
	for _, c := range t.collectors {
		if cl, ok := c.(io.Closer); ok {
			if err := cl.Close(); err != nil {
				t.log.Debug("telemetry: closing collector", "source", c.Source(), "error", err)
			}
		}
	}
}
