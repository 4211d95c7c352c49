//go:build cgo

package telemetry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// nvmlScale converts NVML's units to AIPerf's (pynvml_collector.py,
// ScalingFactors): mW to W, mJ to MJ, bytes to GB, ns to µs.
var nvmlScale = map[string]float64{
	"gpu_power_usage":    1e-3,
	"energy_consumption": 1e-9,
	"gpu_memory_used":    1e-9,
	"power_violation":    1e-3,
}

// NVML collects GPU telemetry from the local GPUs through the NVIDIA
// Management Library, the fields AIPerf's pynvml collector reads, one
// GPUReading per GPU per collection. Close shuts NVML down.
type NVML struct {
	lib    nvml.Interface
	mu     sync.Mutex // serialises Collect and Close
	gpus   []*nvmlGPU
	closed bool
}

// nvmlGPU is one GPU: its handle, its identity, and the two GPM samples
// that give its SM utilisation (nil when the GPU has no GPM).
type nvmlGPU struct {
	dev nvml.Device
	id  GPUReading
	gpm [2]nvml.GpmSample
}

var _ Collector = (*NVML)(nil)

// NewNVML opens NVML on this machine's driver (libnvidia-ml.so.1) and
// finds its GPUs. Without a driver, or without a GPU, it returns an error
// wrapping ErrNoData whose message says why, e.g. "nvml: no NVIDIA
// driver: libnvidia-ml.so.1 not found"; the run can go on without GPU
// telemetry. The returned Collector is an *NVML.
func NewNVML() (Collector, error) {
	n, err := NewNVMLWith(nvml.New())
	if err != nil {
		return nil, err
	}
	return n, nil
}

// NewNVMLWith is NewNVML on the given NVML implementation (go-nvml's
// mocks in tests). It initialises lib and, on failure, leaves it shut.
func NewNVMLWith(lib nvml.Interface) (*NVML, error) {
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return nil, nvmlInitError(ret)
	}
	count, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		_ = lib.Shutdown()
		return nil, fmt.Errorf("nvml: counting GPUs: %s", ret.Error())
	}
	n := &NVML{lib: lib}
	for i := range count {
		if g := n.open(i); g != nil {
			n.gpus = append(n.gpus, g)
		}
	}
	if len(n.gpus) == 0 {
		_ = lib.Shutdown()
		return nil, noDataError("nvml: no NVIDIA GPU found")
	}
	return n, nil
}

// nvmlInitError says why nvml.Init failed, in words a user can act on.
func nvmlInitError(ret nvml.Return) error {
	switch ret {
	case nvml.ERROR_LIBRARY_NOT_FOUND:
		return noDataError("nvml: no NVIDIA driver: libnvidia-ml.so.1 not found")
	case nvml.ERROR_DRIVER_NOT_LOADED:
		return noDataError("nvml: the NVIDIA driver is not loaded")
	case nvml.ERROR_NO_PERMISSION:
		return errors.New("nvml: no permission to open the NVIDIA driver")
	}
	return fmt.Errorf("nvml: init: %s", ret.Error())
}

// open gets GPU i's handle and identity as AIPerf does (unknown UUID and
// name replaced, device "nvidia<i>", hostname "localhost") and sets up its
// GPM samples when the GPU supports GPM. It returns nil when the GPU has
// no handle.
func (n *NVML) open(i int) *nvmlGPU {
	dev, ret := n.lib.DeviceGetHandleByIndex(i)
	if ret != nvml.SUCCESS {
		return nil
	}
	g := &nvmlGPU{dev: dev, id: GPUReading{
		GPUIndex:  i,
		GPUUUID:   fmt.Sprintf("GPU-unknown-%d", i),
		Device:    fmt.Sprintf("nvidia%d", i),
		Hostname:  "localhost",
		SourceURL: NVMLSource,
	}}
	if uuid, ret := dev.GetUUID(); ret == nvml.SUCCESS {
		g.id.GPUUUID = uuid
	}
	g.id.GPUModelName = "Unknown GPU"
	if name, ret := dev.GetName(); ret == nvml.SUCCESS {
		g.id.GPUModelName = name
	}
	if pci, ret := dev.GetPciInfo(); ret == nvml.SUCCESS {
		g.id.PCIBusID = cString(pci.BusId[:])
	}
	if sup, ret := dev.GpmQueryDeviceSupport(); ret == nvml.SUCCESS && sup.IsSupportedDevice != 0 {
		a, ra := n.lib.GpmSampleAlloc()
		b, rb := n.lib.GpmSampleAlloc()
		if ra == nvml.SUCCESS && rb == nvml.SUCCESS && dev.GpmSampleGet(a) == nvml.SUCCESS {
			g.gpm = [2]nvml.GpmSample{a, b}
		} else {
			freeSamples(a, b)
		}
	}
	return g
}

// Source returns NVMLSource.
func (n *NVML) Source() string { return NVMLSource }

// Kind returns KindGPU.
func (n *NVML) Kind() Kind { return KindGPU }

// Collect reads every GPU and returns one reading per GPU that gave at
// least one field, stamped with the wall-clock time of the read. A field
// NVML cannot give (not supported, GPU lost) is left out, as AIPerf leaves
// it out. The context is not consulted: NVML calls do not block for long.
func (n *NVML) Collect(context.Context) (Sample, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return Sample{}, errors.New("nvml: collector closed")
	}
	ts := time.Now().UnixNano()
	s := Sample{Kind: KindGPU, Source: NVMLSource}
	for _, g := range n.gpus {
		r := g.id
		r.TimestampNS = ts
		r.Data = n.read(g).fields(nvmlScale)
		if len(r.Data) > 0 {
			s.GPUs = append(s.GPUs, r)
		}
	}
	return s, nil
}

// read takes one GPU's values in NVML's units.
func (n *NVML) read(g *nvmlGPU) *gpuValues {
	var v gpuValues
	d := g.dev
	if mw, ret := d.GetPowerUsage(); ret == nvml.SUCCESS {
		v.set("gpu_power_usage", float64(mw))
	}
	if mj, ret := d.GetTotalEnergyConsumption(); ret == nvml.SUCCESS {
		v.set("energy_consumption", float64(mj))
	}
	if u, ret := d.GetUtilizationRates(); ret == nvml.SUCCESS {
		v.set("gpu_utilization", float64(u.Gpu))
		v.set("mem_utilization", float64(u.Memory))
	}
	if m, ret := d.GetMemoryInfo(); ret == nvml.SUCCESS {
		v.set("gpu_memory_used", float64(m.Used))
	}
	if c, ret := d.GetTemperature(nvml.TEMPERATURE_GPU); ret == nvml.SUCCESS {
		v.set("gpu_temperature", float64(c))
	}
	if u, _, ret := d.GetDecoderUtilization(); ret == nvml.SUCCESS {
		v.set("decoder_utilization", float64(u))
	}
	if u, _, ret := d.GetEncoderUtilization(); ret == nvml.SUCCESS {
		v.set("encoder_utilization", float64(u))
	}
	if u, _, ret := d.GetJpgUtilization(); ret == nvml.SUCCESS {
		v.set("jpg_utilization", float64(u))
	}
	if sm, ok := n.smUtilization(g); ok {
		v.set("sm_utilization", min(sm, 100))
	}
	if vt, ret := d.GetViolationStatus(nvml.PERF_POLICY_POWER); ret == nvml.SUCCESS {
		v.set("power_violation", float64(vt.ViolationTime))
	}
	return &v
}

// smUtilization is the GPU's SM utilisation, in percent: from GPM
// between the previous collection and this one when the GPU has GPM,
// else the sum of its processes' SM utilisation.
func (n *NVML) smUtilization(g *nvmlGPU) (float64, bool) {
	if g.gpm[0] != nil {
		prev, curr := g.gpm[0], g.gpm[1]
		g.gpm = [2]nvml.GpmSample{curr, prev}
		if g.dev.GpmSampleGet(curr) == nvml.SUCCESS {
			mg := &nvml.GpmMetricsGetType{NumMetrics: 1, Sample1: prev, Sample2: curr}
			mg.Metrics[0].MetricId = uint32(nvml.GPM_METRIC_SM_UTIL)
			if n.lib.GpmMetricsGet(mg) == nvml.SUCCESS && nvml.Return(mg.Metrics[0].NvmlReturn) == nvml.SUCCESS {
				return mg.Metrics[0].Value, true
			}
		}
	}
	// go-nvml's wrapper of the newer per-process call does not size its
	// buffer, so the per-process samples come from the older call, which
	// reports the same SM utilisation per process. No process is 0 %.
	ps, ret := g.dev.GetProcessUtilization(0)
	switch {
	case ret == nvml.SUCCESS,
		len(ps) == 0 && (ret == nvml.ERROR_NOT_FOUND || ret == nvml.ERROR_INSUFFICIENT_SIZE):
		sum := 0.0
		for _, p := range ps {
			sum += float64(p.SmUtil)
		}
		return sum, true
	}
	return 0, false
}

// Close frees the GPM samples and shuts NVML down. Collect fails after
// it; later calls do nothing.
func (n *NVML) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil
	}
	n.closed = true
	for _, g := range n.gpus {
		freeSamples(g.gpm[:]...)
	}
	if ret := n.lib.Shutdown(); ret != nvml.SUCCESS {
		return fmt.Errorf("nvml: shutdown: %s", ret.Error())
	}
	return nil
}

// freeSamples frees the GPM samples that were allocated.
func freeSamples(ss ...nvml.GpmSample) {
	for _, s := range ss {
		if s != nil {
			_ = s.Free()
		}
	}
}

// cString converts a NUL-terminated C char array.
func cString(cs []int8) string {
	b := make([]byte, 0, len(cs))
	for _, c := range cs {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return string(b)
}
