//go:build cgo

package telemetry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxa100"
)

// gpmSample is a mock GPM sample that remembers which GPU filled it and
// when.
type gpmSample struct {
	mock.GpmSample
	dev, seq int
	freed    bool
}

// a100 returns go-nvml's DGX A100 mock (8 GPUs) with every call the
// collector makes answered. GPU i draws 250,123 + 1,000·i mW, has used
// 123,456,789,012 + 10⁹·i mJ since boot, is 10·i % busy (memory 5·i %),
// has i GiB of memory in use, runs at 30+i °C, has been power-throttled
// for 2.5·(i+1) ms, decodes at i % on even GPUs (odd ones cannot say),
// encodes at 0 %, and decodes JPEG at i %. GPUs 0–3 have GPM, whose SM
// utilisation is 40.5+i %; on the others the SM utilisation is the sum of
// their processes': 30+45 on GPUs 4 and 5, 70+60 on GPU 6 (capped at
// 100), none on GPU 7.
func a100(t *testing.T) (*dgxa100.Server, *[]*gpmSample) {
	t.Helper()
	srv := dgxa100.New()
	var samples []*gpmSample
	seq := 0
	srv.GpmSampleAllocFunc = func() (nvml.GpmSample, nvml.Return) {
		s := &gpmSample{dev: -1}
		s.FreeFunc = func() nvml.Return { s.freed = true; return nvml.SUCCESS }
		samples = append(samples, s)
		return s, nvml.SUCCESS
	}
	srv.GpmMetricsGetFunc = func(mg *nvml.GpmMetricsGetType) nvml.Return {
		a, b := mg.Sample1.(*gpmSample), mg.Sample2.(*gpmSample)
		if mg.NumMetrics != 1 || mg.Metrics[0].MetricId != uint32(nvml.GPM_METRIC_SM_UTIL) || a.dev != b.dev || a.seq >= b.seq {
			t.Errorf("GPM metrics asked for %d metrics (%d) between samples of GPUs %d, %d taken %d, %d", mg.NumMetrics, mg.Metrics[0].MetricId, a.dev, b.dev, a.seq, b.seq)
			return nvml.ERROR_INVALID_ARGUMENT
		}
		mg.Metrics[0].Value = 40.5 + float64(b.dev)
		return nvml.SUCCESS
	}
	for i, dd := range srv.Devices {
		d := dd.(*dgxa100.Device)
		d.MemoryInfo = nvml.Memory{Total: 42949672960, Used: uint64(i) << 30, Free: 42949672960 - uint64(i)<<30}
		d.GetPciInfoFunc = func() (nvml.PciInfo, nvml.Return) {
			var p nvml.PciInfo
			for k, c := range fmt.Sprintf("00000000:%02X:00.0", 7+i) {
				p.BusId[k] = int8(c)
			}
			return p, nvml.SUCCESS
		}
		d.GetPowerUsageFunc = func() (uint32, nvml.Return) { return uint32(250123 + 1000*i), nvml.SUCCESS }
		d.GetTotalEnergyConsumptionFunc = func() (uint64, nvml.Return) {
			return 123456789012 + uint64(i)*1e9, nvml.SUCCESS
		}
		d.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
			return nvml.Utilization{Gpu: uint32(10 * i), Memory: uint32(5 * i)}, nvml.SUCCESS
		}
		d.GetTemperatureFunc = func(s nvml.TemperatureSensors) (uint32, nvml.Return) {
			if s != nvml.TEMPERATURE_GPU {
				return 0, nvml.ERROR_INVALID_ARGUMENT
			}
			return uint32(30 + i), nvml.SUCCESS
		}
		d.GetDecoderUtilizationFunc = func() (uint32, uint32, nvml.Return) {
			if i%2 == 1 {
				return 0, 0, nvml.ERROR_NOT_SUPPORTED
			}
			return uint32(i), 167000, nvml.SUCCESS
		}
		d.GetEncoderUtilizationFunc = func() (uint32, uint32, nvml.Return) { return 0, 167000, nvml.SUCCESS }
		d.GetJpgUtilizationFunc = func() (uint32, uint32, nvml.Return) { return uint32(i), 167000, nvml.SUCCESS }
		d.GetViolationStatusFunc = func(p nvml.PerfPolicyType) (nvml.ViolationTime, nvml.Return) {
			if p != nvml.PERF_POLICY_POWER {
				return nvml.ViolationTime{}, nvml.ERROR_INVALID_ARGUMENT
			}
			return nvml.ViolationTime{ReferenceTime: 1, ViolationTime: 2_500_000 * uint64(i+1)}, nvml.SUCCESS
		}
		d.GpmQueryDeviceSupportFunc = func() (nvml.GpmSupport, nvml.Return) {
			return nvml.GpmSupport{Version: 1, IsSupportedDevice: map[bool]uint32{true: 1}[i < 4]}, nvml.SUCCESS
		}
		d.GpmSampleGetFunc = func(s nvml.GpmSample) nvml.Return {
			seq++
			gs := s.(*gpmSample)
			gs.dev, gs.seq = i, seq
			return nvml.SUCCESS
		}
		d.GetProcessUtilizationFunc = func(uint64) ([]nvml.ProcessUtilizationSample, nvml.Return) {
			switch i {
			case 6:
				return []nvml.ProcessUtilizationSample{{Pid: 1, SmUtil: 70}, {Pid: 2, SmUtil: 60}}, nvml.SUCCESS
			case 7:
				return nil, nvml.ERROR_NOT_FOUND
			}
			return []nvml.ProcessUtilizationSample{{Pid: 1, SmUtil: 30}, {Pid: 2, SmUtil: 45}}, nvml.SUCCESS
		}
	}
	return srv, &samples
}

func TestNVMLDGXA100(t *testing.T) {
	srv, samples := a100(t)
	n, err := NewNVMLWith(srv)
	if err != nil {
		t.Fatal(err)
	}
	if n.Source() != "pynvml://localhost" || n.Kind() != KindGPU {
		t.Errorf("source %q kind %q", n.Source(), n.Kind())
	}
	s, err := n.Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.GPUs) != 8 {
		t.Fatalf("%d readings", len(s.GPUs))
	}
	for i, r := range s.GPUs {
		d := srv.Devices[i].(*dgxa100.Device)
		if r.GPUIndex != i || r.GPUUUID != d.UUID || r.GPUModelName != "Mock NVIDIA A100-SXM4-40GB" ||
			r.PCIBusID != fmt.Sprintf("00000000:%02X:00.0", 7+i) || r.Device != fmt.Sprintf("nvidia%d", i) ||
			r.Hostname != "localhost" || r.SourceURL != "pynvml://localhost" || r.TimestampNS == 0 {
			t.Errorf("gpu %d identity %+v", i, r)
		}
		fi := float64(i)
		sm := map[int]float64{4: 75, 5: 75, 6: 100, 7: 0}[i]
		if i < 4 {
			sm = 40.5 + fi
		}
		want := Fields{
			{"gpu_power_usage", 250.123 + fi},          // mW → W
			{"energy_consumption", 123.456789012 + fi}, // mJ → MJ
			{"gpu_utilization", 10 * fi},
			{"gpu_memory_used", 1.073741824 * fi}, // i GiB → GB
			{"gpu_temperature", 30 + fi},
			{"mem_utilization", 5 * fi},
			{"sm_utilization", sm},
			{"decoder_utilization", fi},
			{"encoder_utilization", 0},
			{"jpg_utilization", fi},
			{"power_violation", 2500 * (fi + 1)}, // ns → µs
		}
		if i%2 == 1 {
			want = append(want[:7], want[8:]...) // no decoder utilisation
		}
		if len(r.Data) != len(want) {
			t.Fatalf("gpu %d fields %v, want %v", i, r.Data, want)
		}
		for k, f := range r.Data {
			if f.Name != want[k].Name || math.Abs(f.Value-want[k].Value) > 1e-9 {
				t.Errorf("gpu %d: %s=%v, want %s=%v", i, f.Name, f.Value, want[k].Name, want[k].Value)
			}
		}
	}
	// The line as AIPerf's pynvml collector writes it: Python multiplies by
	// the same factors, and repr(250123*1e-3) is 250.12300000000002.
	line := string(func() GPUReading { r := s.GPUs[0]; r.TimestampNS = 1; r.GPUUUID = "GPU-0"; return r }().AppendJSON(nil))
	if want := `{"timestamp_ns":1,"gpu_index":0,"gpu_uuid":"GPU-0","gpu_model_name":"Mock NVIDIA A100-SXM4-40GB",` +
		`"pci_bus_id":"00000000:07:00.0","device":"nvidia0","hostname":"localhost","telemetry_data":{` +
		`"gpu_power_usage":250.12300000000002,"energy_consumption":123.456789012,"gpu_utilization":0.0,"gpu_memory_used":0.0,` +
		`"gpu_temperature":30.0,"mem_utilization":0.0,"sm_utilization":40.5,"decoder_utilization":0.0,` +
		`"encoder_utilization":0.0,"jpg_utilization":0.0,"power_violation":2500.0},` +
		`"telemetry_source_url":"pynvml://localhost"}`; line != want {
		t.Errorf("line:\n got %s\nwant %s", line, want)
	}
	// A second collection measures GPM between the first and the second.
	if _, err := n.Collect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if len(*samples) != 8 {
		t.Errorf("%d GPM samples allocated, want 8 (2 for each of 4 GPUs)", len(*samples))
	}
	for _, gs := range *samples {
		if !gs.freed {
			t.Error("a GPM sample was not freed")
		}
	}
	if _, err := n.Collect(context.Background()); err == nil {
		t.Error("collected after Close")
	}
	if err := n.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestNVMLInitFailures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		init   nvml.Return
		count  int
		want   string
		noData bool
	}{
		{"no library", nvml.ERROR_LIBRARY_NOT_FOUND, 8, "no NVIDIA driver: libnvidia-ml.so.1 not found", true},
		{"driver not loaded", nvml.ERROR_DRIVER_NOT_LOADED, 8, "NVIDIA driver is not loaded", true},
		{"no permission", nvml.ERROR_NO_PERMISSION, 8, "no permission", false},
		{"no GPU", nvml.SUCCESS, 0, "no NVIDIA GPU found", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := a100(t)
			shut := 0
			srv.InitFunc = func() nvml.Return { return tc.init }
			srv.ShutdownFunc = func() nvml.Return { shut++; return nvml.SUCCESS }
			srv.DeviceGetCountFunc = func() (int, nvml.Return) { return tc.count, nvml.SUCCESS }
			n, err := NewNVMLWith(srv)
			if err == nil || n != nil {
				t.Fatalf("NewNVMLWith = %v, %v", n, err)
			}
			if !strings.Contains(err.Error(), tc.want) || errors.Is(err, ErrNoData) != tc.noData {
				t.Errorf("error %q (ErrNoData %v), want %q (%v)", err, errors.Is(err, ErrNoData), tc.want, tc.noData)
			}
			if wantShut := map[bool]int{true: 1}[tc.init == nvml.SUCCESS]; shut != wantShut {
				t.Errorf("Shutdown called %d times, want %d", shut, wantShut)
			}
		})
	}
}

// TestNewNVMLHere opens this machine's NVML: without a driver it must fail
// softly with a clear reason; with one (a GPU machine) it must read every
// GPU.
func TestNewNVMLHere(t *testing.T) {
	c, err := NewNVML()
	if err != nil {
		if !errors.Is(err, ErrNoData) {
			t.Fatalf("not a soft failure: %v", err)
		}
		t.Logf("no NVML here: %v", err)
		return
	}
	defer func() {
		if err := c.(*NVML).Close(); err != nil {
			t.Error(err)
		}
	}()
	s, err := c.Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.GPUs) == 0 {
		t.Fatal("NVML opened but read no GPU")
	}
	for _, r := range s.GPUs {
		t.Logf("%s", r.AppendJSON(nil))
		if _, ok := r.Data.Get("gpu_power_usage"); !ok {
			t.Errorf("GPU %d: no power reading", r.GPUIndex)
		}
	}
}
