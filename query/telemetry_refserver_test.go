package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

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
