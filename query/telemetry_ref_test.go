package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// This file reads telemetry lines with encoding/json, independently of
// the loader's decoders, for the tests to compare against.

// refGPURow is a GPU reading as the tests expect it in gpu_telemetry;
// nil is NULL.
type refGPURow struct {
	TimestampNS int64
	Strs        map[string]*string // by column name
	Index       *int64
	Fields      map[string]*float64 // by column name
}

// refGPULine reads a gpu_telemetry_export.jsonl line: known keys by exact
// name (the last of a repeated key counts), telemetry_data fields under
// their names or aliases, NaN-free numbers (encoding/json has no NaN).
func refGPULine(line []byte) (refGPURow, error) {
	r := refGPURow{Strs: map[string]*string{}, Fields: map[string]*float64{}}
	members, err := orderedObject(line)
	if err != nil {
		return r, err
	}
	hasTS := false
	for _, m := range members {
		switch m.key {
		case "timestamp_ns", "gpu_index":
			bits := 32
			if m.key == "timestamp_ns" {
				bits = 64
			}
			v, err := refInt(m.value, bits)
			if err != nil {
				return r, err
			}
			if m.key == "timestamp_ns" {
				if v == nil {
					hasTS = false
					continue
				}
				r.TimestampNS, hasTS = *v, true
			} else {
				r.Index = v
			}
		case "telemetry_source_url", "dcgm_url", "gpu_uuid", "gpu_model_name", "pci_bus_id", "device", "hostname":
			col := m.key
			if col == "telemetry_source_url" || col == "dcgm_url" {
				col = "source_url"
			}
			var s *string
			if err := json.Unmarshal(m.value, &s); err != nil {
				return r, err
			}
			r.Strs[col] = s
		case "telemetry_data":
			r.Fields = map[string]*float64{}
			if string(m.value) == "null" {
				continue
			}
			fields, err := orderedObject(m.value)
			if err != nil {
				return r, err
			}
			for _, f := range fields {
				col := ""
				for _, gf := range GPUFields {
					if gf.Column == f.key || slices.Contains(gf.Aliases, f.key) {
						col = gf.Column
					}
				}
				if col == "" {
					continue
				}
				v, err := refFloat(f.value)
				if err != nil {
					return r, err
				}
				r.Fields[col] = v
			}
		}
	}
	if !hasTS {
		return r, errors.New("no timestamp_ns")
	}
	return r, nil
}

// member is one key and raw value of a JSON object.
type member struct {
	key   string
	value json.RawMessage
}

// orderedObject returns the members of a JSON object in order,
// duplicates included.
func orderedObject(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{tok.(string), v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("content after the object")
	}
	return out, nil
}

// refNumber reads a number, or null (nil), as encoding/json does.
func refNumber(raw json.RawMessage) (*json.Number, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	if bytes.HasPrefix(raw, []byte(`"`)) {
		return nil, errors.New("a string, not a number")
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, err
	}
	return &n, nil
}

// refFloat reads a number or null; an overflow (an infinity) is null, as
// the loader stores non-finite values.
func refFloat(raw json.RawMessage) (*float64, error) {
	n, err := refNumber(raw)
	if n == nil {
		return nil, err
	}
	f, err := strconv.ParseFloat(n.String(), 64)
	if math.IsInf(f, 0) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// refInt reads an integer or null; a number with a fraction or exponent
// rounds half to even, as DuckDB casts it.
func refInt(raw json.RawMessage, bits int) (*int64, error) {
	n, err := refNumber(raw)
	if n == nil {
		return nil, err
	}
	if v, err := strconv.ParseInt(n.String(), 10, bits); err == nil {
		return &v, nil
	} else if !strings.ContainsAny(n.String(), ".eE") {
		return nil, err
	}
	f, err := strconv.ParseFloat(n.String(), 64)
	if err != nil {
		return nil, err
	}
	f = math.RoundToEven(f)
	lim := math.Ldexp(1, bits-1)
	if !(f >= -lim && f < lim) {
		return nil, errors.New("out of range")
	}
	v := int64(f)
	return &v, nil
}
