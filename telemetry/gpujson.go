package telemetry

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// AppendJSON appends r as one line of gpu_telemetry_export.jsonl, without
// the newline: the keys in the order of AIPerf's file (timestamp_ns,
// gpu_index, gpu_uuid, gpu_model_name, pci_bus_id, device, hostname,
// telemetry_data, telemetry_source_url), no spaces, strings with raw UTF-8
// and floats in Python's spelling. Like AIPerf's exclude_none, an empty
// pci_bus_id, device or hostname (a label the exporter did not send) is
// left out.
func (r GPUReading) AppendJSON(b []byte) []byte {
	b = append(b, `{"timestamp_ns":`...)
	b = strconv.AppendInt(b, r.TimestampNS, 10)
	b = append(b, `,"gpu_index":`...)
	b = strconv.AppendInt(b, int64(r.GPUIndex), 10)
	b = append(b, `,"gpu_uuid":`...)
	b = pyjson.AppendString(b, r.GPUUUID)
	b = append(b, `,"gpu_model_name":`...)
	b = pyjson.AppendString(b, r.GPUModelName)
	for _, kv := range [...]struct{ key, val string }{
		{`,"pci_bus_id":`, r.PCIBusID},
		{`,"device":`, r.Device},
		{`,"hostname":`, r.Hostname},
	} {
		if kv.val != "" {
			b = append(b, kv.key...)
			b = pyjson.AppendString(b, kv.val)
		}
	}
	b = append(b, `,"telemetry_data":`...)
	b = r.Data.AppendJSON(b)
	b = append(b, `,"telemetry_source_url":`...)
	b = pyjson.AppendString(b, r.SourceURL)
	return append(b, '}')
}

// MarshalJSON writes r as AppendJSON does.
func (r GPUReading) MarshalJSON() ([]byte, error) {
	return r.AppendJSON(make([]byte, 0, 512)), nil
}

// UnmarshalJSON reads a line of gpu_telemetry_export.jsonl. Besides the
// current keys it takes AIPerf 0.8–0.11's "dcgm_url" for
// telemetry_source_url; absent strings stay empty and unknown keys
// (namespace, pod_name, platform) are ignored.
func (r *GPUReading) UnmarshalJSON(data []byte) error {
	// plain has GPUReading's fields and JSON keys but not this method.
	type plain GPUReading
	var raw struct {
		plain
		DCGMURL string `json:"dcgm_url"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("gpu telemetry reading: %w", err)
	}
	*r = GPUReading(raw.plain)
	if r.SourceURL == "" {
		r.SourceURL = raw.DCGMURL
	}
	return nil
}
