// Package telemetry collects what the servers and GPUs were doing while a
// benchmark ran: Prometheus server metrics (vLLM, SGLang, TGI, llama.cpp, …)
// and GPU telemetry (DCGM exporter endpoints, or local GPUs through NVML).
//
// Each source is a Collector, a tiny type that takes one sample when asked
// and says whether it worked. A Monitor polls every collector on its own
// goroutine at its interval and hands the samples to one consumer through a
// bounded queue: a slow or dead source never delays another, and the
// consumer (which streams samples to the store and summarises them) never
// delays a poll. A full queue drops the sample and counts the drop; every
// source reports its own health (reachable, scrapes, failures, latency,
// drops) at the end, as node_exporter's collectors report theirs.
package telemetry

import (
	"context"
	"errors"

	dto "github.com/prometheus/client_model/go"
)

// Kind names what a source measures.
type Kind string

const (
	// KindServer is a Prometheus endpoint of the inference server.
	KindServer Kind = "server_metrics"
	// KindGPU is a GPU telemetry source (DCGM exporter or NVML).
	KindGPU Kind = "gpu"
)

// ErrNoData is what a collector returns when there is nothing to collect
// (no GPU, no driver): not a failure of the source.
var ErrNoData = errors.New("no data")

// NVMLSource is the NVML collector's Source, the name AIPerf gives its
// pynvml readings' telemetry_source_url.
const NVMLSource = "pynvml://localhost"

// noDataError is a reason there is nothing to collect: it is ErrNoData to
// errors.Is, and reads as its own message alone.
type noDataError string

func (e noDataError) Error() string { return string(e) }
func (e noDataError) Unwrap() error { return ErrNoData }

// Collector takes one sample of one source each time Collect is called. It
// is called from one goroutine at a time.
type Collector interface {
	// Source names the source: its URL with any credentials redacted (it
	// reaches the run's artifacts and logs), or NVMLSource.
	Source() string
	// Kind says what the source measures.
	Kind() Kind
	// Collect takes one sample. An error means the source failed this
	// time (down, slow past its deadline, garbage); ErrNoData (possibly
	// wrapped) means there is nothing to collect.
	Collect(ctx context.Context) (Sample, error)
}

// Sample is one collection from one source. Exactly one of Server and GPUs
// is set, by the source's Kind.
type Sample struct {
	Kind   Kind
	Source string
	// TimeNS is the wall-clock time the collection started, Unix ns, taken
	// from the run's clock (so it compares with the records' times).
	TimeNS int64
	// LatencyNS is how long the collection took.
	LatencyNS int64
	// Server holds a Prometheus scrape's metric families, by name.
	Server map[string]*dto.MetricFamily
	// GPUs holds one reading per GPU.
	GPUs []GPUReading
}

// GPUReading is one GPU's values at one time: the line of
// gpu_telemetry_export.jsonl, as AIPerf writes it.
type GPUReading struct {
	TimestampNS  int64  `json:"timestamp_ns"`
	GPUIndex     int    `json:"gpu_index"`
	GPUUUID      string `json:"gpu_uuid"`
	GPUModelName string `json:"gpu_model_name"`
	PCIBusID     string `json:"pci_bus_id"`
	Device       string `json:"device"`
	Hostname     string `json:"hostname"`
	// Data are the fields by AIPerf name (gpu_power_usage, …) in AIPerf's
	// units; a field the source did not report is absent.
	Data Fields `json:"telemetry_data"`
	// SourceURL is the collector's Source.
	SourceURL string `json:"telemetry_source_url"`
}

// window is an accumulator's profiling window as the runner marks it
// (Start, End): each bound is set by its first call, later calls are
// ignored.
type window struct {
	started, ended bool
	startNS, endNS int64 // wall-clock Unix ns
}

// start sets the start at ns and reports whether this call set it.
func (w *window) start(ns int64) bool {
	if w.started {
		return false
	}
	w.started, w.startNS = true, ns
	return true
}

// end sets the end at ns unless it is set.
func (w *window) end(ns int64) {
	if !w.ended {
		w.ended, w.endNS = true, ns
	}
}

// before reports whether a sample taken at ns precedes the window: false
// until the window has started.
func (w *window) before(ns int64) bool { return w.started && ns < w.startNS }
