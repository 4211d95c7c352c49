//go:build integration

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// recordFields is what compareRecords compares of a profile_export.jsonl:
// the field sets of success and error records and the error types.
type recordFields struct {
	n          int
	okMeta     map[string]bool
	failMeta   map[string]bool
	okMetrics  map[string]bool
	failMetric map[string]bool
	errFields  map[string]bool
	topOK      map[string]bool
	topFail    map[string]bool
	errTypes   map[string]int // "code type" → count
}

// readRecords collects a profile_export.jsonl's recordFields.
func readRecords(t *testing.T, path string) recordFields {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := recordFields{okMeta: map[string]bool{}, failMeta: map[string]bool{}, okMetrics: map[string]bool{},
		failMetric: map[string]bool{}, errFields: map[string]bool{}, topOK: map[string]bool{},
		topFail: map[string]bool{}, errTypes: map[string]int{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		r.n++
		var meta, metrics, errObj map[string]json.RawMessage
		_ = json.Unmarshal(rec["metadata"], &meta)
		_ = json.Unmarshal(rec["metrics"], &metrics)
		failed := json.Unmarshal(rec["error"], &errObj) == nil && errObj != nil
		top, metaSet, metricSet := r.topOK, r.okMeta, r.okMetrics
		if failed {
			top, metaSet, metricSet = r.topFail, r.failMeta, r.failMetric
			for k := range errObj {
				r.errFields[k] = true
			}
			var e struct {
				Code int    `json:"code"`
				Type string `json:"type"`
			}
			_ = json.Unmarshal(rec["error"], &e)
			r.errTypes[fmt.Sprintf("%d %s", e.Code, e.Type)]++
		}
		for k := range rec {
			top[k] = true
		}
		for k := range meta {
			metaSet[k] = true
		}
		for k := range metrics {
			metricSet[k] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return r
}

// compareRecords compares two profile_export.jsonl files' record counts,
// field sets and (with faults) error types.
func compareRecords(t *testing.T, theirsPath, oursPath string, faults bool) []string {
	t.Helper()
	th, o := readRecords(t, theirsPath), readRecords(t, oursPath)
	var diffs []string
	if th.n != o.n {
		diffs = append(diffs, fmt.Sprintf("value: record count (0.13 %d, ours %d)", th.n, o.n))
	}
	sets := []struct {
		name     string
		th, ours map[string]bool
	}{
		{"record", th.topOK, o.topOK}, {"error record", th.topFail, o.topFail},
		{"record.metadata", th.okMeta, o.okMeta}, {"error record.metadata", th.failMeta, o.failMeta},
		{"record.metrics", th.okMetrics, o.okMetrics}, {"error record.metrics", th.failMetric, o.failMetric},
		{"record.error", th.errFields, o.errFields},
	}
	for _, s := range sets {
		for _, k := range sortedKeys(s.th) {
			if !s.ours[k] {
				diffs = append(diffs, fmt.Sprintf("only 0.13: %s.%s", s.name, k))
			}
		}
		for _, k := range sortedKeys(s.ours) {
			if !s.th[k] {
				diffs = append(diffs, fmt.Sprintf("only ours: %s.%s", s.name, k))
			}
		}
	}
	if faults {
		if len(th.errTypes) == 0 {
			t.Error("the fault run has no error records")
		}
		for _, k := range sortedKeys(th.errTypes) {
			if th.errTypes[k] != o.errTypes[k] {
				diffs = append(diffs, fmt.Sprintf("value: error type %s (0.13 %d, ours %d)", k, th.errTypes[k], o.errTypes[k]))
			}
		}
		for _, k := range sortedKeys(o.errTypes) {
			if _, ok := th.errTypes[k]; !ok {
				diffs = append(diffs, fmt.Sprintf("value: error type %s (0.13 0, ours %d)", k, o.errTypes[k]))
			}
		}
	}
	return diffs
}

// compareTimeslices compares the timeslice files both tools wrote: the
// same file names, and in the JSON the same keys of every slice's metric
// blocks (slices hold a handful of requests, so values are not compared).
func compareTimeslices(t *testing.T, theirs, ours string) []string {
	t.Helper()
	names := func(dir string) []string {
		m, _ := filepath.Glob(filepath.Join(dir, "*timeslice*"))
		for i := range m {
			m[i] = filepath.Base(m[i])
		}
		return m
	}
	thNames, oNames := names(theirs), names(ours)
	var diffs []string
	for _, n := range thNames {
		if !slices.Contains(oNames, n) {
			diffs = append(diffs, "only 0.13: file "+n)
		}
	}
	for _, n := range oNames {
		if !slices.Contains(thNames, n) {
			diffs = append(diffs, "only ours: file "+n)
		}
	}
	if len(thNames) == 0 {
		t.Error("0.13 wrote no timeslice files")
	}
	for _, n := range thNames {
		if !strings.HasSuffix(n, ".json") || !slices.Contains(oNames, n) {
			continue
		}
		th, o := readJSON(t, filepath.Join(theirs, n)), readJSON(t, filepath.Join(ours, n))
		diffs = append(diffs, compareShapes("timeslices", th, o)...)
	}
	return diffs
}

// compareShapes compares two JSON values' keys (recursively, arrays as
// "[]", every element) but not their values.
func compareShapes(path string, theirs, ours any) []string {
	keys := func(v any) map[string]bool {
		out := map[string]bool{}
		var walk func(p string, v any)
		walk = func(p string, v any) {
			switch v := v.(type) {
			case map[string]any:
				for k, e := range v {
					out[p+"."+k] = true
					walk(p+"."+k, e)
				}
			case []any:
				for _, e := range v {
					walk(p+"[]", e)
				}
			}
		}
		walk(path, v)
		return out
	}
	th, o := keys(theirs), keys(ours)
	var diffs []string
	for _, k := range sortedKeys(th) {
		if !o[k] {
			diffs = append(diffs, "only 0.13: "+k)
		}
	}
	for _, k := range sortedKeys(o) {
		if !th[k] {
			diffs = append(diffs, "only ours: "+k)
		}
	}
	return diffs
}
