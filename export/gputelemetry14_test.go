package export

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/telemetry"
)

// aiperf013Fixture is the profile_export_aiperf.json AIPerf 0.13 wrote for
// a run against our mock server with two fake GPUs (--gpu-telemetry
// http://127.0.0.1:29503/dcgm/metrics, concurrency 2, 16 requests), and
// console14_sections.golden what its console printed from the GPU
// platform panel to the last GPU table.
const aiperf013Fixture = "testdata/gputelemetry/aiperf013_summary.json"

// fields08 maps 0.13's GPU metric names to the fields we collect (0.8's).
var fields08 = map[string]telemetry.GPUField{
	"nvidia_power_usage":        {Name: "gpu_power_usage", Header: "GPU Power Usage", Unit: "W"},
	"nvidia_energy_consumption": {Name: "energy_consumption", Header: "Energy Consumption", Unit: "MJ", Counter: true},
	"nvidia_gpu_utilization":    {Name: "gpu_utilization", Header: "GPU Utilization", Unit: "%"},
	"nvidia_memory_utilization": {Name: "mem_utilization", Header: "Memory Utilization", Unit: "%"},
	"nvidia_memory_used":        {Name: "gpu_memory_used", Header: "GPU Memory Used", Unit: "GB"},
	"nvidia_temperature":        {Name: "gpu_temperature", Header: "GPU Temperature", Unit: "°C"},
	"nvidia_sm_utilization":     {Name: "sm_utilization", Header: "SM Utilization", Unit: "%"},
	"nvidia_xid_errors":         {Name: "xid_errors", Header: "XID Errors", Unit: "count", Counter: true},
	"nvidia_power_violation":    {Name: "power_violation", Header: "Power Violation", Unit: "us", Counter: true},
}

// aiperf013Run rebuilds, from the fixture, the GPU summary and the results
// the run had, in our types: our fields in our order (0.8's), as GPUStats
// makes them.
func aiperf013Run(t *testing.T) (*metrics.Summary, *RunInfo, []byte) {
	t.Helper()
	raw, err := os.ReadFile(aiperf013Fixture)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	type stats map[string]any
	var td struct {
		Summary struct {
			Configured []string `json:"endpoints_configured"`
			Successful []string `json:"endpoints_successful"`
			Start      string   `json:"start_time"`
			End        string   `json:"end_time"`
		} `json:"summary"`
		Endpoints map[string]struct {
			GPUs map[string]struct {
				Index    int              `json:"gpu_index"`
				Name     string           `json:"gpu_name"`
				UUID     string           `json:"gpu_uuid"`
				Hostname string           `json:"hostname"`
				Metrics  map[string]stats `json:"metrics"`
			} `json:"gpus"`
		} `json:"endpoints"`
	}
	if err := json.Unmarshal(doc["telemetry_data"], &td); err != nil {
		t.Fatal(err)
	}
	at := func(s string) int64 {
		tm, err := time.ParseInLocation("2006-01-02T15:04:05.999999", s, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		return tm.UnixNano()
	}
	g := &telemetry.GPUSummary{StartNS: at(td.Summary.Start), EndNS: at(td.Summary.End)}
	for key, e := range td.Endpoints {
		ep := telemetry.GPUEndpoint{Source: "http://" + key + "/metrics"}
		for _, slot := range []string{"gpu_0", "gpu_1"} {
			gi := e.GPUs[slot]
			info := telemetry.GPUInfo{Index: gi.Index, UUID: gi.UUID, Name: gi.Name, Hostname: gi.Hostname}
			for _, name := range []string{"gpu_power_usage", "energy_consumption", "gpu_utilization", "gpu_memory_used",
				"gpu_temperature", "mem_utilization", "sm_utilization", "xid_errors", "power_violation"} {
				for name14, f := range fields08 {
					if f.Name != name {
						continue
					}
					st := gi.Metrics[name14]
					num := func(k string) float64 { v, _ := st[k].(float64); return v }
					m := telemetry.GPUMetric{GPUField: f, Avg: num("avg"), Min: num("min"), Max: num("max"), Std: num("std"),
						Count: int(num("count")), Sum: num("sum")}
					for i, p := range []string{"p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"} {
						m.P[i] = num(p)
					}
					info.Metrics = append(info.Metrics, m)
				}
			}
			ep.GPUs = append(ep.GPUs, info)
		}
		g.Endpoints = append(g.Endpoints, ep)
	}
	info := &RunInfo{SchemaVersion: Schema14, Location: time.UTC, GPUTelemetry: g,
		GPUEndpoints14: GPUEndpointLists{Configured: td.Summary.Configured, Successful: td.Summary.Successful}}

	// The energy results, with 0.13's values, and the usage total that
	// brings the cache-reporting hint.
	s := &metrics.Summary{Results: []metrics.Result{{Tag: "total_usage_prompt_tokens", Unit: "tokens", Scalar: true, Avg: 320}}}
	for _, r := range telemetry.EnergyEfficiency(telemetry.EnergyTotals{PowerW: 1, PowerGPUs: 1, EnergyJ: 1, EnergyGPUs: 1, DurationS: 1},
		&metrics.Summary{Results: []metrics.Result{{Tag: "total_osl", Avg: 1}, {Tag: "total_isl", Avg: 1}, {Tag: "request_count", Avg: 1},
			{Tag: "request_latency", Avg: 1}, {Tag: "request_throughput", Avg: 1}, {Tag: "output_token_throughput", Avg: 1}}}, 2) {
		var v struct {
			Unit string  `json:"unit"`
			Avg  float64 `json:"avg"`
		}
		if err := json.Unmarshal(doc[r.Tag], &v); err != nil {
			t.Fatalf("%s: %v", r.Tag, err)
		}
		if v.Unit != r.Unit {
			t.Errorf("%s: unit %q, 0.13 %q", r.Tag, r.Unit, v.Unit)
		}
		r.Avg = v.Avg
		s.Results = append(s.Results, r)
	}
	return s, info, raw
}

// member returns the text of a top-level member of an orjson-indented
// document: its first line to the line before the next member.
func member(doc []byte, name string) string {
	lines := strings.Split(string(doc), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, `  "`+name+`": `) {
			continue
		}
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(lines[j], `  "`) && lines[j] != "}" {
			j++
		}
		return strings.TrimSuffix(strings.Join(lines[i:j], "\n"), ",")
	}
	return ""
}

// TestTelemetryData14MatchesAIPerf: under schema 1.4, telemetry_data and
// the energy results are, byte for byte, what AIPerf 0.13 wrote for the
// same statistics.
func TestTelemetryData14MatchesAIPerf(t *testing.T) {
	s, info, want := aiperf013Run(t)
	var buf bytes.Buffer
	if err := writeSummaryJSON14(&buf, s, info); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"telemetry_data", "nvidia_total_gpu_power", "nvidia_energy_per_user", "nvidia_output_tps_per_watt"} {
		got, exp := member(buf.Bytes(), name), member(want, name)
		if exp == "" || got != exp {
			t.Errorf("%s:\n got %s\nwant %s", name, got, exp)
		}
	}
}

// TestGPUSections14MatchAIPerf: the GPU sections of the 1.4 console are,
// byte for byte, what AIPerf 0.13 printed.
func TestGPUSections14MatchAIPerf(t *testing.T) {
	s, info, _ := aiperf013Run(t)
	want, err := os.ReadFile("testdata/gputelemetry/console14_sections.golden")
	if err != nil {
		t.Fatal(err)
	}
	if got := appendGPUSections14(nil, s, info); string(got) != string(want) {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	info.GPUTelemetry = nil
	if got := appendGPUSections14(nil, s, info); len(got) != 0 {
		t.Errorf("without GPU telemetry: %q", got)
	}
}

// TestGPUTelemetryCSV14MatchesAIPerf: the CSV's GPU section is, byte for
// byte, the one AIPerf 0.13 wrote for the same statistics.
func TestGPUTelemetryCSV14MatchesAIPerf(t *testing.T) {
	_, info, _ := aiperf013Run(t)
	csv, err := os.ReadFile("testdata/gputelemetry/aiperf013_summary.csv")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(csv, []byte("\r\n\r\n\r\nEndpoint,"))
	if i < 0 {
		t.Fatal("no GPU section in the fixture")
	}
	want := string(csv[i+2:])
	if got := string(AppendGPUTelemetryCSV14(nil, info)); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	info.GPUTelemetry = nil
	if got := AppendGPUTelemetryCSV14([]byte("x"), info); string(got) != "x" {
		t.Errorf("without GPU telemetry: %q", got)
	}
}
