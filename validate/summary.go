package validate

import (
	"encoding/json"
	"fmt"
	"slices"
)

// summaryStats are the statistics of a stats block: a number or null.
var summaryStats = []string{"avg", "min", "max", "std", "sum", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"}

// checkSummary checks profile_export_aiperf.json (reference §3.3): an
// object whose metrics are stats blocks ({unit, avg, p50, …}), at its top
// level or, in AIPerf's old layout, under "records"; was_cancelled a
// boolean; error_summary a list of {error_details, count}. Rows counts
// the stats blocks; a summary without any is a problem.
func checkSummary(path string) (Result, error) {
	doc, top, ok, err := readObjectFile(path)
	if !ok {
		return doc.r, err
	}
	bad := doc.bad
	for _, m := range top {
		switch m.Key {
		case "records":
			blocks, err := objectMembers(m.Raw, m.Off)
			if err != nil {
				bad(m.Off, "records", "want an object of metrics, got %s", kind(m.Raw))
				continue
			}
			for _, b := range blocks {
				doc.r.Rows++
				checkStats(b, "records."+b.Key, bad)
			}
		case "schema_version", "aiperf_version", "benchmark_id", "start_time", "end_time":
			if _, ok := str(m.Raw); !ok && !isNull(m.Raw) {
				bad(m.Off, m.Key, "want a string, got %s", kind(m.Raw))
			}
		case "was_cancelled":
			if kind(m.Raw) != "a boolean" {
				bad(m.Off, m.Key, "want a boolean, got %s", kind(m.Raw))
			}
		case "error_summary":
			checkErrorSummary(m, bad)
		default:
			if isStatsBlock(m.Raw) {
				doc.r.Rows++
				checkStats(m, m.Key, bad)
			}
		}
	}
	if doc.r.Rows == 0 {
		doc.problem("", "holds no metric (no member with a \"unit\" and statistics, nor \"records\")")
	}
	return doc.r, nil
}

// isStatsBlock reports whether raw is an object with a "unit" or a
// statistic (avg, p50, …) among its members: a metric, well-formed or not.
func isStatsBlock(raw json.RawMessage) bool {
	var o map[string]json.RawMessage
	if kind(raw) != "an object" || json.Unmarshal(raw, &o) != nil {
		return false
	}
	if _, ok := o["unit"]; ok {
		return true
	}
	for _, k := range summaryStats {
		if _, ok := o[k]; ok {
			return true
		}
	}
	return false
}

// checkStats checks one stats block: unit a string, each statistic a
// number or null, count an integer >= 0 or null, min <= avg <= max and
// the percentiles in order.
func checkStats(m member, field string, bad func(off int, field, format string, args ...any)) {
	members, err := objectMembers(m.Raw, m.Off)
	if err != nil {
		bad(m.Off, field, "want an object of statistics, got %s", kind(m.Raw))
		return
	}
	vals := map[string]float64{}
	hasUnit := false
	for _, s := range members {
		f := field + "." + s.Key
		switch {
		case s.Key == "unit":
			hasUnit = true
			if _, ok := str(s.Raw); !ok {
				bad(s.Off, f, "want a string, got %s", kind(s.Raw))
			}
		case s.Key == "count":
			if v, ok := integer(s.Raw); !isNull(s.Raw) && (!ok || v < 0) {
				bad(s.Off, f, "want an integer >= 0 or null, got %s", s.Raw)
			}
		case slices.Contains(summaryStats, s.Key):
			if isNull(s.Raw) {
				continue
			}
			v, ok := number(s.Raw)
			if !ok {
				bad(s.Off, f, "want a number or null, got %s", kind(s.Raw))
				continue
			}
			vals[s.Key] = v
		}
	}
	if !hasUnit {
		bad(m.Off, field+".unit", "missing")
	}
	order := []string{"min", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "max"}
	var prev string
	for _, k := range order {
		v, ok := vals[k]
		if !ok {
			continue
		}
		if prev != "" && v < vals[prev] {
			bad(m.Off, field+"."+k, "%v is below %s %v: statistics must not decrease from min through the percentiles to max", v, prev, vals[prev])
		}
		prev = k
	}
	if avg, ok := vals["avg"]; ok {
		lo, hasLo := vals["min"]
		hi, hasHi := vals["max"]
		if hasLo && hasHi && (avg < lo || avg > hi) {
			bad(m.Off, field+".avg", "%v lies outside [min %v, max %v]", avg, lo, hi)
		}
	}
}

// checkErrorSummary checks error_summary, [{"error_details": {…},
// "count": N}].
func checkErrorSummary(m member, bad func(off int, field, format string, args ...any)) {
	if isNull(m.Raw) {
		return
	}
	elems, err := arrayElements(m.Raw, m.Off)
	if err != nil {
		bad(m.Off, m.Key, "want an array, got %s", kind(m.Raw))
		return
	}
	for i, e := range elems {
		f := fmt.Sprintf("error_summary[%d]", i)
		var o map[string]json.RawMessage
		if kind(e.Raw) != "an object" || json.Unmarshal(e.Raw, &o) != nil {
			bad(e.Off, f, "want {\"error_details\", \"count\"}, got %s", kind(e.Raw))
			continue
		}
		if c, ok := o["count"]; !ok {
			bad(e.Off, f+".count", "missing")
		} else if v, isInt := integer(c); !isInt || v < 0 {
			bad(e.Off, f+".count", "want an integer >= 0, got %s", c)
		}
		if d, ok := o["error_details"]; !ok {
			bad(e.Off, f+".error_details", "missing")
		} else if kind(d) != "an object" {
			bad(e.Off, f+".error_details", "want an object, got %s", kind(d))
		}
	}
}
