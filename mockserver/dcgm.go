package mockserver

import (
	"fmt"
	"math"
	"os"
	"sync"
)

// The simulated GPU: an NVIDIA H100 SXM under a vLLM-like server, which
// holds most of the framebuffer from start-up (weights and KV cache).
const (
	gpuModelName     = "NVIDIA H100 80GB HBM3"
	gpuDriverVersion = "570.124.06"
	gpuFBTotalMiB    = 81559
	gpuFBReservedMiB = 585
	gpuFBUsedMiB     = 73403 // 90% of the total, as vLLM's gpu_memory_utilization=0.9 takes
	gpuPowerLimitW   = 700
	gpuIdlePowerW    = 69.0 // GPU i idles at gpuIdlePowerW + i·gpuIdleStepW
	gpuIdleStepW     = 0.6
	gpuPeakPowerW    = 640.0
	gpuIdleSMClock   = 345
	gpuBoostSMClock  = 1980
	gpuMemClock      = 2619
	gpuAmbientC      = 30.0
	gpuCPerWatt      = 0.055 // steady temperature rise per watt
	gpuThermalTauSec = 15.0  // the temperature's time constant
	gpuMemTempRiseC  = 5.0   // memory runs this much hotter than the GPU
	gpuBootEnergyMJ  = 2.5e9 // energy counted "since boot" before the mock started, mJ
)

// Load responses, each a function of l, the average number of requests in
// flight per GPU over the interval before a scrape (0 when idle):
// utilisation saturates fast (one request keeps a GPU busy most of the
// time), power and SM activity grow with the batch, the memory copy
// engine sits between them.
const (
	utilHalfLoad    = 0.5 // GPU_UTIL is 100·l/(l+utilHalfLoad)
	powerHalfLoad   = 8.0 // power is idle + (peak−idle)·l/(l+powerHalfLoad)
	smHalfLoad      = 4.0 // PROF_SM_ACTIVE is smMax·l/(l+smHalfLoad)
	smMax           = 0.95
	memUtilHalfLoad = 2.0 // MEM_COPY_UTIL is memUtilMax·l/(l+memUtilHalfLoad)
	memUtilMax      = 85.0
	boostLoad       = 0.125 // SM clock ramps from idle to boost over l in [0, boostLoad]
)

// saturating returns l/(l+half), 0 for l ≤ 0.
func saturating(l, half float64) float64 {
	if l <= 0 {
		return 0
	}
	return l / (l + half)
}

// gpuReading is one GPU's state as of the latest scrape.
type gpuReading struct {
	util      float64 // GPU_UTIL, %
	memUtil   float64 // MEM_COPY_UTIL, %
	smActive  float64 // PROF_SM_ACTIVE, ratio
	powerW    float64
	energyMJ  float64 // since "boot", mJ
	tempC     float64
	smClockMH float64
}

// fakeGPUs simulates n GPUs driven by a loadClock. The request path only
// touches the clock; the GPUs' state advances when scraped, under mu.
type fakeGPUs struct {
	load   *loadClock
	labels []string // per GPU, dcgm-exporter's label set

	mu       sync.Mutex
	lastUS   int64 // clock time of the previous scrape, µs
	lastBusy int64 // the clock's integral then, request·µs
	gpus     []gpuReading
}

// newFakeGPUs returns n idle GPUs whose UUIDs derive from seed.
func newFakeGPUs(n int, seed uint64, load *loadClock) *fakeGPUs {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	f := &fakeGPUs{load: load, gpus: make([]gpuReading, n)}
	for i := range n {
		f.labels = append(f.labels, fmt.Sprintf(
			`gpu="%d",UUID="%s",pci_bus_id="%s",device="nvidia%d",modelName="%s",Hostname="%s",DCGM_FI_DRIVER_VERSION="%s"`,
			i, gpuUUID(seed, i), pciBusID(i), i, gpuModelName, escapeLabel(host), gpuDriverVersion))
		g := &f.gpus[i]
		g.powerW = idlePower(i)
		g.energyMJ = gpuBootEnergyMJ + float64(i)*1e8
		g.tempC = gpuAmbientC + gpuCPerWatt*g.powerW
		g.smClockMH = gpuIdleSMClock
	}
	return f
}

// idlePower returns GPU i's power draw at no load, W.
func idlePower(i int) float64 { return gpuIdlePowerW + float64(i%8)*gpuIdleStepW }

// advance brings every GPU to the clock's present: the load averaged over
// the time since the previous call sets utilisation and power, the energy
// counter integrates that power over that time, and the temperature
// relaxes towards the power's steady temperature. It returns a copy of
// the readings.
func (f *fakeGPUs) advance(out []gpuReading) []gpuReading {
	f.mu.Lock()
	defer f.mu.Unlock()
	now, busy := f.load.read()
	if dt := now - f.lastUS; dt > 0 {
		perGPU := float64(busy-f.lastBusy) / float64(dt) / float64(len(f.gpus))
		sec := float64(dt) / 1e6
		relax := 1 - math.Exp(-sec/gpuThermalTauSec)
		for i := range f.gpus {
			g := &f.gpus[i]
			idle := idlePower(i)
			g.util = 100 * saturating(perGPU, utilHalfLoad)
			g.memUtil = memUtilMax * saturating(perGPU, memUtilHalfLoad)
			g.smActive = smMax * saturating(perGPU, smHalfLoad)
			g.powerW = idle + (gpuPeakPowerW-idle)*saturating(perGPU, powerHalfLoad)
			g.energyMJ += g.powerW * sec * 1e3
			g.tempC += (gpuAmbientC + gpuCPerWatt*g.powerW - g.tempC) * relax
			g.smClockMH = gpuIdleSMClock + (gpuBoostSMClock-gpuIdleSMClock)*min(perGPU/boostLoad, 1)
		}
		f.lastUS, f.lastBusy = now, busy
	}
	return append(out[:0], f.gpus...)
}

// gpuUUID returns GPU i's UUID, "GPU-" and 32 hex digits in the 8-4-4-4-12
// grouping, the first two outputs of a splitmix64 stream that starts at
// seed + i·2³² (so the GPUs' streams do not overlap).
func gpuUUID(seed uint64, i int) string {
	x := seed + uint64(i)<<32
	a, b := splitmix(&x), splitmix(&x)
	return fmt.Sprintf("GPU-%08x-%04x-%04x-%04x-%012x",
		a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}

// splitmix advances *x and returns the next splitmix64 output.
func splitmix(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// dgxBuses are the PCI buses of the eight GPUs of a DGX H100.
var dgxBuses = [8]int{0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb}

// pciBusID returns GPU i's PCI bus id as NVML writes it; every eight GPUs
// take the next PCI domain.
func pciBusID(i int) string {
	return fmt.Sprintf("%08X:%02X:00.0", i/8, dgxBuses[i%8])
}

// escapeLabel escapes a Prometheus label value.
func escapeLabel(s string) string {
	var b []byte
	for i := range len(s) {
		switch c := s[i]; c {
		case '\\', '"':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		default:
			b = append(b, c)
		}
	}
	return string(b)
}
