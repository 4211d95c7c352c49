package runner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// aiperf013Dir holds a directory written by Python AIPerf 0.13.0 itself
// against our mock server: streaming chat, concurrency 2, 12 requests,
// ISL 20, OSL 8, seed 7, with injected 500s.
const aiperf013Dir = "../report/testdata/aiperf-0.13"

// run14 runs the configuration of aiperf013Dir's run against an in-process
// mock with fixed timing and injected 500s, with --output-schema 1.4, and
// returns the artifact directory.
func run14(t *testing.T) string {
	t.Helper()
	srv := mocktest.Start(t, mockserver.Config{TTFT: 2 * time.Millisecond, ITL: 200 * time.Microsecond,
		OutputTokens: 8, ErrorRate: 0.3, Seed: 5})
	cfg := testConfig(t, srv.URL())
	cfg.OutputSchema = "1.4"
	cfg.Streaming = true
	cfg.Concurrency, cfg.RequestCount = 2, 12
	cfg.ISLMean, cfg.OSLMean = 20, 8
	cfg.RandomSeed = 7
	cfg.NoServerMetrics, cfg.NoGPUTelemetry = true, true
	cfg.CLICommand = "aiperf profile --output-schema 1.4"
	res := runOK(t, cfg)
	if len(res.Summary.Errors) == 0 {
		t.Fatal("no injected errors: the comparison needs error records")
	}
	return cfg.ArtifactDir
}

// shape lists a JSON value's paths in order, each once, with its leaf type
// ("path: number"); array elements share the path "[]". Strings under the
// keys in keep are written with their value.
func shape(t *testing.T, data []byte, keep ...string) []string {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	var walk func(path, key string) error
	walk = func(path, key string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch d := tok.(type) {
		case json.Delim:
			if d == '{' {
				add(path + ": {}")
				for dec.More() {
					k, err := dec.Token()
					if err != nil {
						return err
					}
					if err := walk(path+"."+k.(string), k.(string)); err != nil {
						return err
					}
				}
			} else {
				add(path + ": []")
				for dec.More() {
					if err := walk(path+"[]", key); err != nil {
						return err
					}
				}
			}
			_, err = dec.Token() // the closing delimiter
			return err
		case string:
			if slices.Contains(keep, key) {
				add(fmt.Sprintf("%s: %q", path, d))
			} else {
				add(path + ": string")
			}
		case json.Number:
			add(path + ": number")
		case bool:
			add(path + ": bool")
		case nil:
			add(path + ": null")
		}
		return nil
	}
	if err := walk("", ""); err != nil {
		t.Fatalf("shape: %v", err)
	}
	_ = v
	return out
}

// topLevel splits the summary JSON into its members, in order.
func topLevel(t *testing.T, data []byte) ([]string, map[string]json.RawMessage) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	members := map[string]json.RawMessage{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		members[k.(string)] = raw
	}
	return keys, members
}

// isMetric reports whether a summary member is a metric block.
func isMetric(raw json.RawMessage) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(raw, &probe) != nil {
		return false
	}
	_, ok := probe["unit"]
	return ok
}

// jsonlLines decodes profile_export.jsonl into raw lines.
func jsonlLines(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, slices.Clone(sc.Bytes()))
	}
	return lines
}

// firstRecords returns the shapes of the first success and first error
// record (metadata and error only: which metrics a record has is the
// metrics package's business).
func firstRecords(t *testing.T, lines [][]byte) (ok, failed []string) {
	t.Helper()
	for _, l := range lines {
		s := shape(t, l, "benchmark_phase", "phase_name", "phase_kind", "type")
		s = slices.DeleteFunc(s, func(p string) bool { return strings.HasPrefix(p, ".metrics.") })
		if slices.ContainsFunc(s, func(p string) bool { return strings.HasPrefix(p, ".error") }) {
			if failed == nil {
				failed = s
			}
		} else if ok == nil {
			ok = s
		}
	}
	if ok == nil || failed == nil {
		t.Fatalf("want a success and an error record, got %d lines", len(lines))
	}
	return ok, failed
}

// TestSchema14MatchesAIPerf013 compares the layout of our --output-schema
// 1.4 files with the files AIPerf 0.13 wrote for the same run: the same
// non-metric members in the same order and nesting, the same keys in every
// metric block both have, and the same record metadata and error fields.
// Values are not compared; metrics only 0.13 computes are logged.
func TestSchema14MatchesAIPerf013(t *testing.T) {
	dir := run14(t)
	ours, err := os.ReadFile(filepath.Join(dir, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := os.ReadFile(filepath.Join(aiperf013Dir, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	oKeys, oMem := topLevel(t, ours)
	tKeys, tMem := topLevel(t, theirs)
	var oOrder, tOrder, missing []string
	for _, k := range tKeys {
		if isMetric(tMem[k]) {
			if _, ok := oMem[k]; !ok {
				missing = append(missing, k)
			}
			continue
		}
		tOrder = append(tOrder, k)
	}
	for _, k := range oKeys {
		if !isMetric(oMem[k]) && k != "run_validity" && k != "url_summary" {
			oOrder = append(oOrder, k)
		}
	}
	if !slices.Equal(oOrder, tOrder) {
		t.Errorf("non-metric members:\n ours %v\n 0.13 %v", oOrder, tOrder)
	}
	if len(missing) > 0 {
		t.Logf("metrics 0.13 writes that this run has not: %v", missing)
	}
	for _, k := range tKeys {
		if _, ok := oMem[k]; !ok {
			continue
		}
		o, th := shape(t, oMem[k]), shape(t, tMem[k])
		if k == "error_summary" || k == "input_config" || k == "run_info" || isMetric(tMem[k]) {
			if !slices.Equal(o, th) {
				t.Errorf("%s:\n ours %v\n 0.13 %v", k, o, th)
			}
		}
	}
	oOK, oFailed := firstRecords(t, jsonlLines(t, filepath.Join(dir, "profile_export.jsonl")))
	tOK, tFailed := firstRecords(t, jsonlLines(t, filepath.Join(aiperf013Dir, "profile_export.jsonl")))
	if !slices.Equal(oOK, tOK) {
		t.Errorf("success record:\n ours %v\n 0.13 %v", oOK, tOK)
	}
	// 0.13 builds a 500's record without the time of its first response
	// byte; we keep it when we have it.
	noAck := func(s []string) []string {
		return slices.DeleteFunc(slices.Clone(s), func(p string) bool { return strings.HasPrefix(p, ".metadata.request_ack_ns") })
	}
	if !slices.Equal(noAck(oFailed), noAck(tFailed)) {
		t.Errorf("error record:\n ours %v\n 0.13 %v", oFailed, tFailed)
	}
}

// TestSchema14Golden pins the layout of a 1.4 run against the mock: the
// summary's non-metric members, one distribution and one scalar block, and
// the first success and error records, with values normalised to their
// types (units, phases and error types kept).
func TestSchema14Golden(t *testing.T) {
	dir := run14(t)
	js, err := os.ReadFile(filepath.Join(dir, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	keys, mem := topLevel(t, js)
	var b strings.Builder
	for _, k := range keys {
		if isMetric(mem[k]) && k != "request_latency" && k != "request_count" {
			continue
		}
		for _, line := range shape(t, mem[k], "unit", "schema_version", "name", "kind", "type", "ui") {
			fmt.Fprintf(&b, "%s%s\n", k, line)
		}
	}
	ok, failed := firstRecords(t, jsonlLines(t, filepath.Join(dir, "profile_export.jsonl")))
	for _, s := range [][]string{ok, failed} {
		b.WriteString("jsonl record\n")
		for _, line := range s {
			b.WriteString(line + "\n")
		}
	}
	csv, err := os.ReadFile(filepath.Join(dir, "profile_export_aiperf.csv"))
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString("csv header " + strings.SplitN(string(csv), "\r\n", 2)[0] + "\n")
	checkGolden(t, "schema14_layout.golden", b.String())
}
