package runner

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/telemetry"
)

// TestGPUEndpoints14 lists the GPU sources as AIPerf 0.13's telemetry
// manager does (_compute_endpoints_for_display): the URLs the user named
// that are not defaults, then the reachable defaults; the reachable ones,
// defaults first.
func TestGPUEndpoints14(t *testing.T) {
	const (
		d0, d1 = "http://localhost:9400/metrics", "http://localhost:9401/metrics"
		user   = "http://node1:9400/metrics"
	)
	gpu := func(src string, ok bool) telemetry.Health {
		return telemetry.Health{Source: src, Kind: telemetry.KindGPU, Reachable: ok}
	}
	server := telemetry.Health{Source: "http://localhost:8000/metrics", Kind: telemetry.KindServer, Reachable: true}
	for _, tc := range []struct {
		name   string
		items  []string
		health []telemetry.Health
		want   export.GPUEndpointLists
	}{
		{"a URL, no default", []string{"node1:9400"}, []telemetry.Health{server, gpu(d0, false), gpu(d1, false), gpu(user, true)},
			export.GPUEndpointLists{Configured: []string{user}, Successful: []string{user}}},
		{"defaults alone", nil, []telemetry.Health{gpu(d0, true), gpu(d1, false)},
			export.GPUEndpointLists{Configured: []string{d0}, Successful: []string{d0}}},
		{"a URL and a default", []string{"http://node1:9400/metrics"}, []telemetry.Health{gpu(d0, false), gpu(d1, true), gpu(user, true)},
			export.GPUEndpointLists{Configured: []string{user, d1}, Successful: []string{d1, user}}},
		{"a URL that is a default", []string{"http://localhost:9400"}, []telemetry.Health{gpu(d0, true), gpu(d1, false)},
			export.GPUEndpointLists{Configured: []string{d0}, Successful: []string{d0}}},
		{"nothing reachable", []string{user}, []telemetry.Health{gpu(d0, false), gpu(d1, false), gpu(user, false)},
			export.GPUEndpointLists{Configured: []string{user}}},
		{"nothing at all", nil, []telemetry.Health{gpu(d0, false), gpu(d1, false)}, export.GPUEndpointLists{}},
		{"nvml", []string{"nvml"}, []telemetry.Health{gpu(telemetry.NVMLSource, true)},
			export.GPUEndpointLists{Configured: []string{telemetry.NVMLSource}, Successful: []string{telemetry.NVMLSource}}},
		{"nvml unavailable", []string{"pynvml"}, []telemetry.Health{gpu(telemetry.NVMLSource, false)},
			export.GPUEndpointLists{Configured: []string{telemetry.NVMLSource}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Defaults()
			cfg.GPUTelemetry = tc.items
			r := &run{cfg: &cfg}
			if got := r.gpuEndpoints14(tc.health); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestGPUTelemetry14 writes input_config.gpu_telemetry as 0.13's
// build_gpu_telemetry does.
func TestGPUTelemetry14(t *testing.T) {
	for _, tc := range []struct {
		name  string
		off   bool
		items []string
		want  string
	}{
		{"off", true, nil, `{"enabled":false}`},
		{"default", false, nil, `{"enabled":true}`},
		{"bare flag", false, []string{""}, `{"enabled":true}`},
		{"a URL", false, []string{"http://127.0.0.1:9/dcgm/metrics"},
			`{"enabled":true,"urls":["http://127.0.0.1:9/dcgm/metrics"],"collector":"dcgm","mode":"summary"}`},
		{"host:port and dashboard", false, []string{"node1:9401", "dashboard"},
			`{"enabled":true,"urls":["http://node1:9401"],"collector":"dcgm","mode":"realtime_dashboard"}`},
		{"nvml", false, []string{"nvml"}, `{"enabled":true,"urls":[],"collector":"pynvml","mode":"summary"}`},
		{"credentials", false, []string{"https://u:pw@h:1/metrics"},
			`{"enabled":true,"urls":["https://<redacted>@h:1/metrics"],"collector":"dcgm","mode":"summary"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Defaults()
			cfg.NoGPUTelemetry, cfg.GPUTelemetry = tc.off, tc.items
			var buf strings.Builder
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(newGPUTelemetry14(&cfg)); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(buf.String()); got != tc.want {
				t.Errorf("got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// avgOnly is a scalar result of a summary JSON.
type avgOnly struct {
	Avg float64 `json:"avg"`
}

// checkEnergy14 checks a 1.4 summary JSON of a run of 40 requests at
// concurrency 4 against two fake GPUs: its GPUs are 0.13's (platform,
// nvidia_ names, count and sum), and its energy results follow from the
// total energy as 0.13 defines them.
func checkEnergy14(t *testing.T, summary []byte) {
	t.Helper()
	var doc struct {
		Telemetry struct {
			Endpoints map[string]struct {
				GPUs map[string]struct {
					Platform string `json:"platform"`
					Metrics  map[string]struct {
						Avg, Sum float64
						Count    int
					} `json:"metrics"`
				} `json:"gpus"`
			} `json:"endpoints"`
		} `json:"telemetry_data"`
		Energy  avgOnly `json:"nvidia_total_gpu_energy"`
		PerReq  avgOnly `json:"nvidia_energy_per_request"`
		PerUser avgOnly `json:"nvidia_energy_per_user"`
		Power   avgOnly `json:"nvidia_total_gpu_power"`
	}
	if err := json.Unmarshal(summary, &doc); err != nil {
		t.Fatal(err)
	}
	gpus := 0
	for _, e := range doc.Telemetry.Endpoints {
		for slot, g := range e.GPUs {
			gpus++
			p := g.Metrics["nvidia_power_usage"]
			if g.Platform != "nvidia" || p.Count < 1 || math.Abs(p.Sum-p.Avg*float64(p.Count)) > 1e-6*p.Sum {
				t.Errorf("%s: platform %q, power %v", slot, g.Platform, p)
			}
			if _, ok := g.Metrics["gpu_power_usage"]; ok {
				t.Errorf("%s has 0.8's names", slot)
			}
		}
	}
	if gpus != 2 {
		t.Errorf("%d GPUs in telemetry_data", gpus)
	}
	energy := doc.Energy.Avg
	if energy <= 0 || doc.Power.Avg <= 0 {
		t.Fatalf("energy %v J, power %v W", doc.Energy, doc.Power)
	}
	if math.Abs(doc.PerReq.Avg-energy/40) > 1e-9*energy || math.Abs(doc.PerUser.Avg-energy/4) > 1e-9*energy {
		t.Errorf("energy %v J: per request %v, per user %v", energy, doc.PerReq, doc.PerUser)
	}
}
