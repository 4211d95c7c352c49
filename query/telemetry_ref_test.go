package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

// refServerRow is a server metric sample as the tests expect it in
// server_metrics (before the type, which depends on the run).
type refServerRow struct {
	TimestampNS         int64
	Endpoint            *string
	LatencyNS           *int64
	Metric, Labels      string
	FamilyType          string // "" when the record does not say
	Value, Sum, Count   *float64
	Buckets, Quantiles  [][2]float64 // nil: NULL; a NaN value is NULL
	HasBuckets, HasQuan bool
}

// refServerLine expands a server_metrics_export.jsonl line into rows.
func refServerLine(line []byte) ([]refServerRow, error) {
	members, err := orderedObject(line)
	if err != nil {
		return nil, err
	}
	var head refServerRow
	hasTS := false
	var rows []refServerRow
	for _, m := range members {
		switch m.key {
		case "timestamp_ns":
			v, err := refInt(m.value, 64)
			if err != nil {
				return nil, err
			}
			hasTS = v != nil
			if v != nil {
				head.TimestampNS = *v
			}
		case "endpoint_latency_ns":
			if head.LatencyNS, err = refInt(m.value, 64); err != nil {
				return nil, err
			}
		case "endpoint_url":
			head.Endpoint = nil
			if err := json.Unmarshal(m.value, &head.Endpoint); err != nil {
				return nil, err
			}
		case "metrics":
			if string(m.value) == "null" {
				rows = nil
				continue
			}
			fams, err := orderedObject(m.value)
			if err != nil {
				return nil, err
			}
			rows = nil
			for _, f := range fams {
				got, err := refFamily(f.key, f.value)
				if err != nil {
					return nil, err
				}
				rows = append(rows, got...)
			}
		}
	}
	if !hasTS {
		return nil, errors.New("no timestamp_ns")
	}
	for i := range rows {
		rows[i].TimestampNS, rows[i].Endpoint, rows[i].LatencyNS = head.TimestampNS, head.Endpoint, head.LatencyNS
	}
	return rows, nil
}

// refFamily expands one metric family: a list of samples, or an object
// with type and samples.
func refFamily(name string, raw json.RawMessage) ([]refServerRow, error) {
	var famType string
	samples := raw
	switch {
	case string(raw) == "null":
		return nil, nil
	case bytes.HasPrefix(raw, []byte("{")):
		members, err := orderedObject(raw)
		if err != nil {
			return nil, err
		}
		samples = nil
		for _, m := range members {
			switch m.key {
			case "type":
				var t *string
				if err := json.Unmarshal(m.value, &t); err != nil {
					return nil, err
				}
				if t != nil {
					famType = *t
				}
			case "samples":
				samples = m.value
			}
		}
		if samples == nil || string(samples) == "null" {
			return nil, nil
		}
	case !bytes.HasPrefix(raw, []byte("[")):
		return nil, errors.New("not a list")
	}
	var list []json.RawMessage
	if err := json.Unmarshal(samples, &list); err != nil {
		return nil, err
	}
	var rows []refServerRow
	for _, s := range list {
		if string(s) == "null" {
			continue
		}
		r := refServerRow{Metric: name, Labels: "{}", FamilyType: famType}
		members, err := orderedObject(s)
		if err != nil {
			return nil, err
		}
		for _, m := range members {
			switch m.key {
			case "labels":
				if r.Labels, err = refLabels(m.value); err != nil {
					return nil, err
				}
			case "value", "sum", "count":
				v, err := refFloat(m.value)
				if err != nil {
					return nil, err
				}
				*map[string]**float64{"value": &r.Value, "sum": &r.Sum, "count": &r.Count}[m.key] = v
			case "buckets", "histogram", "summary", "quantiles":
				pairs, null, err := refPairs(m.value)
				if err != nil {
					return nil, err
				}
				if m.key == "buckets" || m.key == "histogram" {
					r.Buckets, r.HasBuckets = pairs, !null
				} else {
					r.Quantiles, r.HasQuan = pairs, !null
				}
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// refLabels returns a labels object as the loader stores it: compact
// JSON, in the order given, a repeated name keeping its first place and
// its last value.
func refLabels(raw json.RawMessage) (string, error) {
	if string(raw) == "null" {
		return "{}", nil
	}
	members, err := orderedObject(raw)
	if err != nil {
		return "", err
	}
	var names []string
	values := map[string]string{}
	for _, m := range members {
		var v string
		if err := json.Unmarshal(m.value, &v); err != nil || !bytes.HasPrefix(m.value, []byte(`"`)) {
			return "", errors.New("label value not a string")
		}
		if _, ok := values[m.key]; !ok {
			names = append(names, m.key)
		}
		values[m.key] = v
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(appendYYString(nil, []byte(n)))
		b.WriteByte(':')
		b.Write(appendYYString(nil, []byte(values[n])))
	}
	b.WriteByte('}')
	return b.String(), nil
}

// refPairs reads {"0.1": 3, "+Inf": 5} into pairs in order, a repeated
// bound keeping its first place and its last value.
func refPairs(raw json.RawMessage) ([][2]float64, bool, error) {
	if string(raw) == "null" {
		return nil, true, nil
	}
	members, err := orderedObject(raw)
	if err != nil {
		return nil, false, err
	}
	pairs := [][2]float64{}
	for _, m := range members {
		k, err := strconv.ParseFloat(strings.TrimSpace(m.key), 64)
		if err != nil || math.IsNaN(k) {
			return nil, false, fmt.Errorf("bound %q", m.key)
		}
		v, err := refFloat(m.value)
		if err != nil {
			return nil, false, err
		}
		val := math.NaN()
		if v != nil {
			val = *v
		}
		dup := false
		for i := range pairs {
			if pairs[i][0] == k {
				pairs[i][1], dup = val, true
			}
		}
		if !dup {
			pairs = append(pairs, [2]float64{k, val})
		}
	}
	return pairs, false, nil
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

// refFloat reads a number or null; an overflow (an infinity) is null, as
// the loader stores non-finite values.
func refFloat(raw json.RawMessage) (*float64, error) {
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
