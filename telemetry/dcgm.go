package telemetry

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/aiperf-go/aiperf/internal/secret"
)

// DefaultDCGMURLs returns the DCGM exporter endpoints AIPerf scrapes unless
// told otherwise (AIPERF_GPU_DEFAULT_DCGM_ENDPOINTS): ports 9400 and 9401
// on localhost.
func DefaultDCGMURLs() []string {
	return []string{"http://localhost:9400/metrics", "http://localhost:9401/metrics"}
}

// DefaultGPUInterval is AIPerf's GPU telemetry collection interval
// (AIPERF_GPU_COLLECTION_INTERVAL, 0.333 s).
const DefaultGPUInterval = 333 * time.Millisecond

// dcgmFields maps DCGM exporter metric names to AIPerf's fields
// (gpu_telemetry/constants.py, DCGM_TO_FIELD_MAPPING).
var dcgmFields = map[string]string{
	"DCGM_FI_DEV_POWER_USAGE":              "gpu_power_usage",
	"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": "energy_consumption",
	"DCGM_FI_DEV_GPU_UTIL":                 "gpu_utilization",
	"DCGM_FI_DEV_MEM_COPY_UTIL":            "mem_utilization",
	"DCGM_FI_DEV_FB_USED":                  "gpu_memory_used",
	"DCGM_FI_DEV_GPU_TEMP":                 "gpu_temperature",
	"DCGM_FI_DEV_ENC_UTIL":                 "encoder_utilization",
	"DCGM_FI_DEV_DEC_UTIL":                 "decoder_utilization",
	"DCGM_FI_PROF_SM_ACTIVE":               "sm_utilization",
	"DCGM_FI_DEV_XID_ERRORS":               "xid_errors",
	"DCGM_FI_DEV_POWER_VIOLATION":          "power_violation",
}

// dcgmScale converts DCGM's units to AIPerf's (dcgm_collector.py,
// SCALING_FACTORS): mJ to MJ, MiB to GB, a 0–1 ratio to percent, ns to µs.
// Python multiplies by the factor, and so do we, for the same rounding.
var dcgmScale = map[string]float64{
	"energy_consumption": 1e-9,
	"gpu_memory_used":    1.048576e-3,
	"sm_utilization":     100,
	"power_violation":    1e-3,
}

// DCGM collects GPU telemetry from one DCGM exporter endpoint, one
// GPUReading per GPU per scrape, as AIPerf's DCGMTelemetryCollector does.
type DCGM struct {
	scraper Scraper
	source  string // the URL, redacted
	// last is the hash of the last readings delivered; delivered counts
	// the collections that delivered readings.
	last      uint64
	delivered int
}

var _ Collector = (*DCGM)(nil)

// NewDCGM returns a collector for the DCGM exporter at url (a full
// metrics URL, e.g. http://localhost:9400/metrics). client sends the
// requests; nil means http.DefaultClient.
func NewDCGM(url string, client *http.Client) *DCGM {
	return &DCGM{scraper: Scraper{URL: url, Client: client}, source: secret.URL(url)}
}

// Source returns the endpoint's URL, credentials redacted (it reaches the
// run's artifacts and logs).
func (d *DCGM) Source() string { return d.source }

// Kind returns KindGPU.
func (d *DCGM) Kind() Kind { return KindGPU }

// Collect scrapes the endpoint and returns one reading per GPU that
// reported at least one known field, ordered by GPU index and stamped
// with the wall-clock time of the parse (as AIPerf stamps them).
//
// Like AIPerf, which drops a scrape whose text equals the previous one,
// a scrape whose readings equal the last ones delivered is returned as a
// Sample with no GPUs: DCGM updates its values on its own interval
// (often 1 s or more), and repeating them would weigh a value by how
// often it was polled. The first two collections always deliver, so
// that a start-up Probe, whose sample is discarded, does not swallow the
// first reading of the run.
//
// An exposition without any GPU field is ErrNoData; an unreachable or
// malformed endpoint is an error.
func (d *DCGM) Collect(ctx context.Context) (Sample, error) {
	fams, err := d.scraper.Scrape(ctx)
	if err != nil {
		return Sample{}, err
	}
	gpus, err := dcgmReadings(fams, d.source, time.Now().UnixNano())
	if err != nil {
		return Sample{}, fmt.Errorf("%s: %w", d.source, err)
	}
	h := gpuReadingsHash(gpus)
	if d.delivered >= 2 && h == d.last {
		return Sample{Kind: KindGPU, Source: d.source}, nil
	}
	d.last = h
	d.delivered++
	return Sample{Kind: KindGPU, Source: d.source, GPUs: gpus}, nil
}

// gpuReadingsHash hashes the readings without their timestamps.
func gpuReadingsHash(gpus []GPUReading) uint64 {
	h := fnv.New64a()
	var b []byte
	for _, r := range gpus {
		r.TimestampNS = 0
		b = r.AppendJSON(b[:0])
		_, _ = h.Write(b)
	}
	return h.Sum64()
}

// dcgmGPU gathers one GPU's identity and values during a parse.
type dcgmGPU struct {
	reading GPUReading
	ok      bool // identity taken from a sample with a UUID
	values  gpuValues
}

// dcgmReadings maps a DCGM exposition to readings: every gauge, counter or
// untyped sample with an integer "gpu" label gives that GPU its identity
// (labels UUID, modelName, pci_bus_id, device, Hostname, from the first
// sample that has a UUID, families in name order); the samples of
// dcgmFields set its values (a trailing _total is ignored, non-finite
// values are skipped, a later sample of the same field wins), scaled to
// AIPerf's units. Readings come ordered by GPU index with their fields in
// AIPerf's field order; a GPU without a UUID label is left out.
func dcgmReadings(fams map[string]*dto.MetricFamily, source string, ts int64) ([]GPUReading, error) {
	names := make([]string, 0, len(fams))
	for name := range fams {
		names = append(names, name)
	}
	slices.Sort(names)
	gpus := map[int]*dcgmGPU{}
	for _, name := range names {
		field := dcgmFields[strings.TrimSuffix(name, "_total")]
		for _, m := range fams[name].GetMetric() {
			v, ok := dcgmValue(m)
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			labels := dcgmLabels(m)
			idx, err := strconv.Atoi(strings.TrimSpace(labels["gpu"]))
			if err != nil {
				continue // no GPU label (or not an integer): not per GPU
			}
			g := gpus[idx]
			if g == nil {
				g = &dcgmGPU{}
				gpus[idx] = g
			}
			if !g.ok && labels["UUID"] != "" {
				// Copies: a scrape's strings share one buffer, which the
				// readings (kept by the accumulators) would keep alive.
				g.ok = true
				g.reading = GPUReading{
					TimestampNS:  ts,
					GPUIndex:     idx,
					GPUUUID:      strings.Clone(labels["UUID"]),
					GPUModelName: strings.Clone(labels["modelName"]),
					PCIBusID:     strings.Clone(labels["pci_bus_id"]),
					Device:       strings.Clone(labels["device"]),
					Hostname:     strings.Clone(labels["Hostname"]),
					SourceURL:    source,
				}
			}
			if field != "" {
				g.values.set(field, v)
			}
		}
	}
	return dcgmAssemble(gpus)
}

// dcgmAssemble turns the parsed GPUs into readings, ordered by index.
func dcgmAssemble(gpus map[int]*dcgmGPU) ([]GPUReading, error) {
	idxs := make([]int, 0, len(gpus))
	for idx := range gpus {
		idxs = append(idxs, idx)
	}
	slices.Sort(idxs)
	var out []GPUReading
	valued := 0
	for _, idx := range idxs {
		g := gpus[idx]
		r := g.reading
		r.Data = g.values.fields(dcgmScale)
		if len(r.Data) == 0 {
			continue
		}
		valued++
		if g.ok {
			out = append(out, r)
		}
	}
	switch {
	case valued == 0:
		return nil, noDataError("no DCGM GPU fields in the exposition")
	case len(out) == 0:
		return nil, errors.New("no GPU in the DCGM exposition has a UUID label")
	}
	return out, nil
}

// dcgmValue returns a gauge's, counter's or untyped sample's value.
func dcgmValue(m *dto.Metric) (float64, bool) {
	switch {
	case m.Gauge != nil:
		return m.Gauge.GetValue(), true
	case m.Counter != nil:
		return m.Counter.GetValue(), true
	case m.Untyped != nil:
		return m.Untyped.GetValue(), true
	}
	return 0, false
}

// dcgmLabels returns a sample's labels by name.
func dcgmLabels(m *dto.Metric) map[string]string {
	out := make(map[string]string, len(m.GetLabel()))
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}
