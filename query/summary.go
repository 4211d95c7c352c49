package query

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// metricRow is one run_metrics row: a metric's statistics from the summary.
type metricRow struct {
	Tag, Unit string
	// Stats holds the values of statColumns in order: float64 (int64 for
	// count), or nil where the summary has none.
	Stats [15]any
	// Scalar reports a metric with a single value (aggregate or derived):
	// no percentile, min, max or std.
	Scalar bool
}

// summary is what profile_export_aiperf.json says about a run.
type summary struct {
	SchemaVersion string
	AIPerfVersion string
	BenchmarkID   string
	InputConfig   []byte // raw JSON, nil when absent
	WasCancelled  bool
	Start, End    time.Time
	// NaiveTimes reports start and end times written without a zone (AIPerf
	// writes local times): Start and End then hold the wall-clock reading
	// as if it were UTC, for localTimes to convert.
	NaiveTimes bool
	Metrics    []metricRow // sorted by tag
}

// legacyTags are the metric tags of AIPerf before 0.8 (records and summary)
// and the tags they are now.
var legacyTags = map[string]string{
	"ttft": "time_to_first_token",
	"ttst": "time_to_second_token",
}

// parseSummary reads profile_export_aiperf.json. Every top-level object
// with a "unit" is a metric (schema 1.x); the pre-1.0 layout, with metrics
// under "records", is read too. NaN and infinities, which Python's json
// writes, read as null. Times without a zone (AIPerf writes local times)
// keep their wall-clock reading (NaiveTimes) for localTimes to place.
// Metrics under their pre-0.8 tags (ttft, ttst) get today's tags unless the
// summary has those too.
func parseSummary(data []byte) (*summary, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(sanitizeJSON(data), &top); err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	s := &summary{}
	str := func(key string) string {
		var v string
		_ = json.Unmarshal(top[key], &v) // absent or not a string: ""
		return v
	}
	s.SchemaVersion, s.AIPerfVersion, s.BenchmarkID = str("schema_version"), str("aiperf_version"), str("benchmark_id")
	_ = json.Unmarshal(top["was_cancelled"], &s.WasCancelled)
	if raw := top["input_config"]; len(raw) > 0 && string(raw) != "null" {
		s.InputConfig = raw
	}
	var naiveStart, naiveEnd bool
	s.Start, naiveStart = parseTime(str("start_time"))
	s.End, naiveEnd = parseTime(str("end_time"))
	s.NaiveTimes = naiveStart || naiveEnd

	metrics := top
	if raw, ok := top["records"]; ok {
		var recs map[string]json.RawMessage
		if json.Unmarshal(raw, &recs) == nil {
			metrics = recs
		}
	}
	for tag, raw := range metrics {
		if len(raw) == 0 || raw[0] != '{' {
			continue
		}
		m, ok := parseStats(raw)
		if !ok {
			continue
		}
		m.Tag = tag
		if now, ok := legacyTags[tag]; ok {
			if _, dup := metrics[now]; !dup {
				m.Tag = now
			}
		}
		s.Metrics = append(s.Metrics, m)
	}
	sort.Slice(s.Metrics, func(i, j int) bool { return s.Metrics[i].Tag < s.Metrics[j].Tag })
	return s, nil
}

// parseStats reads a stats block; ok is false when it is not one (no
// "unit").
func parseStats(raw json.RawMessage) (metricRow, bool) {
	var block map[string]json.RawMessage
	if json.Unmarshal(raw, &block) != nil {
		return metricRow{}, false
	}
	unitRaw, ok := block["unit"]
	if !ok {
		return metricRow{}, false
	}
	var m metricRow
	_ = json.Unmarshal(unitRaw, &m.Unit)
	m.Scalar = true
	for i, name := range statColumns {
		var v *float64
		if json.Unmarshal(block[name], &v) != nil || v == nil {
			continue
		}
		if name == "count" {
			m.Stats[i] = int64(*v)
		} else {
			m.Stats[i] = *v
		}
		switch name {
		case "avg", "sum", "count":
		default:
			m.Scalar = false
		}
	}
	return m, true
}

// parseTime reads RFC 3339 or AIPerf's zone-less ISO times; "" or an
// unreadable time is the zero time. naive reports a time without a zone,
// returned as its wall-clock reading in UTC.
func parseTime(s string) (t time.Time, naive bool) {
	if s == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, false
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// sanitizeJSON replaces the bare tokens NaN, Infinity and -Infinity, which
// Python's json module writes but JSON forbids, by null. Strings are left
// alone. Input without them is returned as is.
func sanitizeJSON(data []byte) []byte {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data
	}
	out := make([]byte, 0, len(data))
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			out = append(out, c)
			continue
		}
		rest := string(data[i:min(len(data), i+9)])
		switch {
		case strings.HasPrefix(rest, "NaN"):
			out, i = append(out, "null"...), i+2
		case strings.HasPrefix(rest, "-Infinity"):
			out, i = append(out, "null"...), i+8
		case strings.HasPrefix(rest, "Infinity"):
			out, i = append(out, "null"...), i+7
		default:
			out = append(out, c)
		}
	}
	return out
}
