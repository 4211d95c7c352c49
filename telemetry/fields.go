package telemetry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// Field is one telemetry value under its AIPerf name.
type Field struct {
	Name  string
	Value float64
}

// Fields are a reading's values in AIPerf's field order. They marshal as
// one JSON object ({"gpu_power_usage":30.257,…}) with Python's float
// spelling, as AIPerf writes them.
type Fields []Field

// Get returns the named field's value and whether it is present.
func (fs Fields) Get(name string) (float64, bool) {
	if i := fs.index(name); i >= 0 {
		return fs[i].Value, true
	}
	return 0, false
}

// AppendJSON appends fs as one JSON object in their order, floats spelled
// as Python's repr spells them ("2.0", "49.659510784000005"); a NaN or
// infinite value, which JSON cannot hold, is written as null. Empty Fields
// are "{}".
func (fs Fields) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, f := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		b = pyjson.AppendString(b, f.Name)
		b = append(b, ':')
		b = pyjson.AppendFloat(b, f.Value)
	}
	return append(b, '}')
}

// MarshalJSON writes fs as AppendJSON does.
func (fs Fields) MarshalJSON() ([]byte, error) {
	return fs.AppendJSON(nil), nil
}

// UnmarshalJSON reads a JSON object of numbers, keeping the members'
// order. A null member is left out (AIPerf leaves out what it did not
// read); a repeated name keeps its first place and its last value; any
// other value is an error. JSON null as a whole gives nil Fields.
func (fs *Fields) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("telemetry fields: %w", err)
	}
	if tok == nil {
		*fs = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("telemetry fields: not a JSON object")
	}
	out := Fields{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("telemetry fields: %w", err)
		}
		name, _ := tok.(string) // object keys are always strings
		tok, err = dec.Token()
		if err != nil {
			return fmt.Errorf("telemetry fields: %q: %w", name, err)
		}
		var v float64
		switch t := tok.(type) {
		case nil:
			continue
		case json.Number:
			v, err = strconv.ParseFloat(string(t), 64)
			if err != nil {
				return fmt.Errorf("telemetry fields: %q: %w", name, err)
			}
		default:
			return fmt.Errorf("telemetry fields: %q is not a number", name)
		}
		if i := out.index(name); i >= 0 {
			out[i].Value = v
			continue
		}
		out = append(out, Field{Name: name, Value: v})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return fmt.Errorf("telemetry fields: %w", err)
	}
	*fs = out
	return nil
}

// index returns the position of the named field, or -1.
func (fs Fields) index(name string) int {
	for i, f := range fs {
		if f.Name == name {
			return i
		}
	}
	return -1
}

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
	b = r.appendGPUKeys(append(b, ','))
	b = append(b, `,"telemetry_data":`...)
	b = r.Data.AppendJSON(b)
	b = append(b, `,"telemetry_source_url":`...)
	b = pyjson.AppendString(b, r.SourceURL)
	return append(b, '}')
}

// appendGPUKeys appends the keys that name r's GPU, as both layouts of
// gpu_telemetry_export.jsonl write them: "gpu_index", "gpu_uuid",
// "gpu_model_name", then "pci_bus_id", "device" and "hostname" when set
// (AIPerf's exclude_none), with no leading or trailing comma.
func (r GPUReading) appendGPUKeys(b []byte) []byte {
	b = append(b, `"gpu_index":`...)
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
	return b
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
