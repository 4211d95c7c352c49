package export

import (
	"strconv"
	"time"

	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/telemetry"
)

// AppendGPUReading appends r as one line of gpu_telemetry_export.jsonl,
// newline included, exactly as AIPerf writes it (see
// telemetry.GPUReading.AppendJSON).
func AppendGPUReading(dst []byte, r telemetry.GPUReading) []byte {
	return append(r.AppendJSON(dst), '\n')
}

// gpuSourceLists returns the configured and the reachable GPU telemetry sources:
// those of health (KindGPU), or, without health, the summary's endpoints.
func gpuSourceLists(s *telemetry.GPUSummary, health []telemetry.Health) (configured, reachable []string) {
	for _, h := range health {
		if h.Kind != telemetry.KindGPU {
			continue
		}
		configured = append(configured, h.Source)
		if h.Reachable {
			reachable = append(reachable, h.Source)
		}
	}
	if configured == nil && s != nil {
		for _, e := range s.Endpoints {
			configured = append(configured, e.Source)
		}
		reachable = configured
	}
	return configured, reachable
}

// gpuKeyed is one member of a JSON object built in order: a later member of
// the same name replaces the earlier one in its place, as a Python dict
// does.
type gpuKeyed[T any] struct {
	key string
	val T
}

func putGPUKeyed[T any](list []gpuKeyed[T], key string, val T) []gpuKeyed[T] {
	for i := range list {
		if list[i].key == key {
			list[i].val = val
			return list
		}
	}
	return append(list, gpuKeyed[T]{key, val})
}

// gpuEndpoints returns the summary's GPUs keyed as AIPerf keys them, by
// endpointDisplay and then "gpu_<index>" (a later GPU of the same key
// replacing an earlier one in its place); nil for a nil summary.
func gpuEndpoints(s *telemetry.GPUSummary) []gpuKeyed[[]gpuKeyed[telemetry.GPUInfo]] {
	if s == nil {
		return nil
	}
	var endpoints []gpuKeyed[[]gpuKeyed[telemetry.GPUInfo]]
	for _, e := range s.Endpoints {
		var gpus []gpuKeyed[telemetry.GPUInfo]
		for _, g := range e.GPUs {
			gpus = putGPUKeyed(gpus, "gpu_"+strconv.Itoa(g.Index), g)
		}
		endpoints = putGPUKeyed(endpoints, endpointDisplay(e.Source), gpus)
	}
	return endpoints
}

// appendTelemetryData writes the summary JSON's "telemetry_data" value at
// depth 1 as AIPerf's TelemetryExportData (model_dump_json, indent 2,
// exclude_none): summary (endpoints configured and reachable, the window's
// start and end times), endpoints keyed by endpointDisplay, their GPUs
// keyed "gpu_<index>" with their metrics (a counter with unit and avg
// only), and error_summary (the failures of the reachable GPU sources).
// Under schema 1.4 it is AIPerf 0.13's: the endpoints are
// info.GPUEndpoints14's, every GPU has "platform", and the metrics have
// 0.13's names and order, a gauge's ending in count and sum.
func appendTelemetryData(iw *indentWriter, s *telemetry.GPUSummary, info *RunInfo) {
	configured, reachable := gpuSourceLists(s, info.TelemetryHealth)
	if info.is14() {
		configured, reachable = info.GPUEndpoints14.Configured, info.GPUEndpoints14.Successful
	}
	iw.b = append(iw.b, '{')
	iw.key(true, 2, "summary")
	iw.b = append(iw.b, '{')
	iw.key(true, 3, "endpoints_configured")
	appendStrings(iw, configured, 3)
	iw.key(false, 3, "endpoints_successful")
	appendStrings(iw, reachable, 3)
	iw.key(false, 3, "start_time")
	iw.b = pyjson.AppendString(iw.b, pyDatetime(windowTime(s.StartNS, info.Start), info.location()))
	iw.key(false, 3, "end_time")
	iw.b = pyjson.AppendString(iw.b, pyDatetime(windowTime(s.EndNS, info.End), info.location()))
	iw.newline(2)
	iw.b = append(iw.b, '}')

	iw.key(false, 2, "endpoints")
	endpoints := gpuEndpoints(s)
	if len(endpoints) == 0 {
		iw.b = append(iw.b, '{', '}')
	} else {
		iw.b = append(iw.b, '{')
		for i, e := range endpoints {
			iw.key(i == 0, 3, e.key)
			iw.b = append(iw.b, '{')
			iw.key(true, 4, "gpus")
			appendGPUs(iw, e.val, info.is14())
			iw.newline(3)
			iw.b = append(iw.b, '}')
		}
		iw.newline(2)
		iw.b = append(iw.b, '}')
	}

	iw.key(false, 2, "error_summary")
	appendGPUErrors(iw, info.TelemetryHealth)
	iw.newline(1)
	iw.b = append(iw.b, '}')
}

// appendGPUs writes an endpoint's "gpus" object at depth 4, as AIPerf 0.13
// does with is14.
func appendGPUs(iw *indentWriter, gpus []gpuKeyed[telemetry.GPUInfo], is14 bool) {
	if len(gpus) == 0 {
		iw.b = append(iw.b, '{', '}')
		return
	}
	iw.b = append(iw.b, '{')
	for i, kg := range gpus {
		g := kg.val
		iw.key(i == 0, 5, kg.key)
		iw.b = append(iw.b, '{')
		iw.key(true, 6, "gpu_index")
		iw.b = strconv.AppendInt(iw.b, int64(g.Index), 10)
		iw.key(false, 6, "gpu_name")
		iw.b = pyjson.AppendString(iw.b, g.Name)
		iw.key(false, 6, "gpu_uuid")
		iw.b = pyjson.AppendString(iw.b, g.UUID)
		ms := g.Metrics
		if is14 {
			iw.key(false, 6, "platform")
			iw.b = pyjson.AppendString(iw.b, telemetry.GPUPlatformNVIDIA)
			ms = g.Metrics14()
		}
		if g.Hostname != "" {
			iw.key(false, 6, "hostname")
			iw.b = pyjson.AppendString(iw.b, g.Hostname)
		}
		iw.key(false, 6, "metrics")
		if len(ms) == 0 {
			iw.b = append(iw.b, '{', '}')
		} else {
			iw.b = append(iw.b, '{')
			for j := range ms {
				appendGPUMetric(iw, &ms[j], j == 0, is14)
			}
			iw.newline(6)
			iw.b = append(iw.b, '}')
		}
		iw.newline(5)
		iw.b = append(iw.b, '}')
	}
	iw.newline(4)
	iw.b = append(iw.b, '}')
}

// appendGPUMetric writes one metric's stats block at depth 7: unit and avg,
// then, for a gauge, p1…p99, min, max and std, and with is14 (AIPerf 0.13)
// count and sum, its numbers as orjson writes them.
func appendGPUMetric(iw *indentWriter, m *telemetry.GPUMetric, first, is14 bool) {
	iw.key(first, 7, m.Name)
	iw.b = append(iw.b, '{')
	iw.key(true, 8, "unit")
	iw.b = pyjson.AppendString(iw.b, m.Unit)
	float := pyjson.AppendFloat
	if is14 {
		float = pyjson.AppendFloatOrjson
	}
	iw.key(false, 8, "avg")
	iw.b = float(iw.b, m.Avg)
	if !m.Counter {
		for i, name := range statNames[1:10] {
			iw.key(false, 8, name)
			iw.b = float(iw.b, m.P[i])
		}
		for _, kv := range [...]struct {
			name string
			v    float64
		}{{"min", m.Min}, {"max", m.Max}, {"std", m.Std}} {
			iw.key(false, 8, kv.name)
			iw.b = float(iw.b, kv.v)
		}
		if is14 {
			iw.key(false, 8, "count")
			iw.b = strconv.AppendInt(iw.b, int64(m.Count), 10)
			iw.key(false, 8, "sum")
			iw.b = float(iw.b, m.Sum)
		}
	}
	iw.newline(7)
	iw.b = append(iw.b, '}')
}

// appendGPUErrors writes error_summary at depth 2: one entry per reachable
// GPU source that failed some collections, with its last error's message
// and its failure count (AIPerf counts each distinct error; a source's
// health keeps only its last one).
func appendGPUErrors(iw *indentWriter, health []telemetry.Health) {
	n := 0
	for _, h := range health {
		if h.Kind != telemetry.KindGPU || !h.Reachable || h.Failures == 0 {
			continue
		}
		if n == 0 {
			iw.b = append(iw.b, '[')
		} else {
			iw.b = append(iw.b, ',')
		}
		n++
		iw.newline(3)
		iw.b = append(iw.b, '{')
		iw.key(true, 4, "error_details")
		iw.b = append(iw.b, '{')
		iw.key(true, 5, "message")
		iw.b = pyjson.AppendString(iw.b, h.LastError)
		iw.newline(4)
		iw.b = append(iw.b, '}')
		iw.key(false, 4, "count")
		iw.b = strconv.AppendInt(iw.b, h.Failures, 10)
		iw.newline(3)
		iw.b = append(iw.b, '}')
	}
	if n == 0 {
		iw.b = append(iw.b, '[', ']')
		return
	}
	iw.newline(2)
	iw.b = append(iw.b, ']')
}

// windowTime is the window bound ns, or fallback when the bound was not
// set, or now when neither is known (AIPerf writes datetime.now()).
func windowTime(ns int64, fallback time.Time) time.Time {
	switch {
	case ns != 0:
		return time.Unix(0, ns)
	case !fallback.IsZero():
		return fallback
	}
	return time.Now()
}

// GPUEndpointLists are the GPU telemetry sources AIPerf 0.13 lists in
// telemetry_data's summary and above its console GPU tables.
type GPUEndpointLists struct {
	// Configured (endpoints_configured) are the DCGM URLs the user named
	// (--gpu-telemetry) that are not default endpoints, then the default
	// endpoints that were reachable; with a local collector (NVML), its
	// source.
	Configured []string
	// Successful (endpoints_successful) are the sources that were
	// reachable, defaults first.
	Successful []string
}
