package mockserver

import (
	"math"
	"net/http"
	"strconv"
)

// dcgmField is one DCGM field as dcgm-exporter exposes it: a family with
// one sample per GPU.
type dcgmField struct {
	name, typ, help string
	float           bool // written with six decimals, else as an integer
	value           func(g *gpuReading) float64
}

// dcgmFields are the exposed fields, in dcgm-exporter's default order
// (etc/default-counters.csv) with the fields AIPerf also maps (power
// limit, violations, total framebuffer, SM activity) beside their kin.
var dcgmFields = []dcgmField{
	{"DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", false,
		func(g *gpuReading) float64 { return g.smClockMH }},
	{"DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", false,
		func(*gpuReading) float64 { return gpuMemClock }},
	{"DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", false,
		func(g *gpuReading) float64 { return g.tempC + gpuMemTempRiseC }},
	{"DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", false,
		func(g *gpuReading) float64 { return g.tempC }},
	{"DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", true,
		func(g *gpuReading) float64 { return g.powerW }},
	{"DCGM_FI_DEV_POWER_MGMT_LIMIT", "gauge", "Power management limit (in W).", true,
		func(*gpuReading) float64 { return gpuPowerLimitW }},
	{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ).", false,
		func(g *gpuReading) float64 { return g.energyMJ }},
	{"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", false,
		func(g *gpuReading) float64 { return g.util }},
	{"DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", false,
		func(g *gpuReading) float64 { return g.memUtil }},
	{"DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.", false,
		func(*gpuReading) float64 { return 0 }},
	{"DCGM_FI_DEV_POWER_VIOLATION", "counter", "Throttling duration due to power constraints (in us).", false,
		func(*gpuReading) float64 { return 0 }},
	{"DCGM_FI_DEV_THERMAL_VIOLATION", "counter", "Throttling duration due to thermal constraints (in us).", false,
		func(*gpuReading) float64 { return 0 }},
	{"DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", false,
		func(*gpuReading) float64 { return gpuFBTotalMiB - gpuFBReservedMiB - gpuFBUsedMiB }},
	{"DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", false,
		func(*gpuReading) float64 { return gpuFBUsedMiB }},
	{"DCGM_FI_DEV_FB_TOTAL", "gauge", "Framebuffer memory total (in MiB).", false,
		func(*gpuReading) float64 { return gpuFBTotalMiB }},
	{"DCGM_FI_PROF_SM_ACTIVE", "gauge", "Ratio of cycles an SM has at least 1 warp assigned.", true,
		func(g *gpuReading) float64 { return g.smActive }},
}

// appendTo advances the GPUs to now and writes their metrics in
// dcgm-exporter's exposition: HELP and TYPE per field, one sample per GPU
// labelled gpu, UUID, pci_bus_id, device, modelName, Hostname and
// DCGM_FI_DRIVER_VERSION; integer fields as integers (rounded; the energy
// counter truncated, so it never runs ahead of the power integral).
func (f *fakeGPUs) appendTo(b []byte) []byte {
	readings := f.advance(make([]gpuReading, 0, len(f.gpus)))
	for _, fd := range dcgmFields {
		b = appendFamily(b, fd.name, fd.typ, fd.help)
		for i := range readings {
			b = append(b, fd.name...)
			b = append(b, '{')
			b = append(b, f.labels[i]...)
			b = append(b, "} "...)
			v := fd.value(&readings[i])
			switch {
			case fd.float:
				b = strconv.AppendFloat(b, v, 'f', 6, 64)
			case fd.typ == "counter":
				b = strconv.AppendInt(b, int64(math.Floor(v)), 10)
			default:
				b = strconv.AppendInt(b, int64(math.Round(v)), 10)
			}
			b = append(b, '\n')
		}
	}
	return b
}

// serveHTTP answers a scrape of the fake GPUs.
func (f *fakeGPUs) serveHTTP(w http.ResponseWriter, _ *http.Request) {
	b := f.appendTo(make([]byte, 0, 1024+len(dcgmFields)*len(f.gpus)*256))
	h := w.Header()
	h.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}
