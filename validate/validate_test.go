package validate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// where is a problem's place: line and field.
type where struct {
	Line  int
	Field string
}

// TestCheck checks fixtures of real AIPerf runs and docs, and broken
// files whose every problem is known, against the problems found (their
// line and field; the wording is the loaders').
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const goodRecord = `{"metadata":{"session_num":0,"x_request_id":"a","conversation_id":"s0","turn_index":0,"request_start_ns":100,"request_end_ns":200,"benchmark_phase":"profiling","was_cancelled":false},"metrics":{"request_latency":{"value":1.5,"unit":"ms"},"inter_chunk_latency":{"value":[1,2],"unit":"ms"}},"error":null}`
	for _, tc := range []struct {
		name, target, path string
		rows               int
		want               []where
	}{
		// Fixtures: AIPerf's docs examples and the artifacts of real runs.
		{"docs trace", "mooncake-trace", "testdata/custom_trace.jsonl", 3, nil},
		{"docs trace, underscore", "mooncake_trace", "testdata/custom_trace.jsonl", 3, nil},
		{"docs conversations", "multi-turn", "testdata/conversations.jsonl", 2, nil},
		{"docs prompts", "single-turn", "testdata/prompts.jsonl", 5, nil},
		{"docs pool", "random-pool", "testdata/pool.jsonl", 8, nil},
		{"aiperf 0.13 records", TargetRecords, "testdata/aiperf-0.13_profile_export.jsonl", 12, nil},
		{"aiperf 0.13 summary", TargetSummary, "testdata/aiperf-0.13_profile_export_aiperf.json", 75, nil},
		{"aiperf 0.8 summary", TargetSummary, "testdata/baseline-chat_profile_export_aiperf.json", 22, nil},
		{"prompts are no trace", "mooncake-trace", "testdata/prompts.jsonl", 0,
			[]where{{1, ""}, {2, ""}, {3, ""}, {4, ""}, {5, ""}}},

		// Broken datasets: every bad line named, not only the first.
		{"trace: bad fields", "mooncake-trace", file("trace.jsonl",
			`{"input_length": 10, "output_length": 4}
{"input_length": "ten"}
{"input_length": 10, "output_length": -1}

{"text_input": "hi", "hash_ids": [1]}
not json
`), 0, []where{{2, "input_length"}, {3, "output_length"}, {5, "hash_ids"}, {6, ""}}},
		{"single turn: no text", "single-turn", file("single.jsonl", `{"text": "a"}
{"texts": 5}
`), 0, []where{{2, "texts"}}},
		{"payload", TargetPayload, file("payload.jsonl", `{"text": "a", "temperature": 0}
{"messages": [], "model": "m"}
{"text": 1}
{"timestamp": 3}
`), 0, []where{{3, "text"}, {4, ""}}},
		{"empty file", "single-turn", file("empty.jsonl", ""), 0, []where{{0, ""}}},

		// Broken records.
		{"records", TargetRecords, file("records.jsonl", goodRecord+`
{"metadata":{"request_start_ns":300,"request_end_ns":200,"benchmark_phase":"cooldown"},"metrics":{"ttft":{"value":"x","unit":"ms"},"osl":{"value":3}},"error":{"code":"500","type":"x"}}
{"metrics":{}}
[1,2]
`), 4, []where{
			{2, "metadata.request_end_ns"}, {2, "metadata.benchmark_phase"}, {2, "metrics.ttft.value"}, {2, "metrics.osl.unit"},
			{2, "error.code"}, {2, "error.message"},
			{3, "metadata"}, {4, ""},
		}},
		{"records, old layout", TargetRecords, file("old.jsonl",
			`{"metadata":{"timestamp_ns":5,"credit_phase":"warmup"},"metrics":{},"error":null}`), 1, nil},

		// Broken summaries: the line of each bad member.
		{"summary", TargetSummary, file("summary.json", `{
  "schema_version": "1.4",
  "request_latency": {"unit": "ms", "avg": 5, "min": 1, "max": 9, "p50": 4, "p90": 3},
  "time_to_first_token": {"avg": "fast"},
  "was_cancelled": "no",
  "error_summary": [{"error_details": {"code": 500}, "count": -2}]
}`), 2, []where{{3, "request_latency.p90"}, {4, "time_to_first_token.avg"}, {4, "time_to_first_token.unit"},
			{5, "was_cancelled"}, {6, "error_summary[0].count"}}},
		{"summary without metrics", TargetSummary, file("nometrics.json", `{"schema_version": "1.4"}`), 0, []where{{0, ""}}},
		{"summary not JSON", TargetSummary, file("bad.json", `{"a": `), 0, []where{{0, ""}}},

		// inputs.json.
		{"inputs", TargetInputs, file("inputs.json", `{"data": [
  {"session_id": "s0", "payloads": [{"messages": [], "model": "m"}]},
  {"session_id": "s1", "payloads": [{"model": "m"}, {"model": "m"}]}
]}`), 2, nil},
		{"inputs broken", TargetInputs, file("inputs-bad.json", `{"data": [
  {"session_id": "s0", "payloads": [{"model": "m"}]},
  {"session_id": "s0",
   "payloads": [{}, 3]},
  {"payloads": []}
]}`), 3, []where{{3, "data[1].session_id"}, {4, "data[1].payloads[0]"}, {4, "data[1].payloads[1]"},
			{5, "data[2].session_id"}, {5, "data[2].payloads"}}},
		{"inputs without data", TargetInputs, file("nodata.json", `{}`), 0, []where{{0, "data"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Check(context.Background(), tc.target, tc.path)
			if err != nil {
				t.Fatal(err)
			}
			var got []where
			for _, p := range res.Problems {
				got = append(got, where{p.Line, p.Field})
				if p.File != tc.path {
					t.Errorf("problem names file %q, want %q", p.File, tc.path)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("problems at %v, want %v:\n%v", got, tc.want, res.Problems)
			}
			if len(tc.want) == 0 && res.Rows != tc.rows || tc.rows > 0 && res.Rows != tc.rows {
				t.Errorf("rows %d, want %d", res.Rows, tc.rows)
			}
		})
	}
}

// TestCheckUnknownTarget: an unknown target is an *ErrTarget naming the
// known ones.
func TestCheckUnknownTarget(t *testing.T) {
	_, err := Check(context.Background(), "sharegpt", "x")
	var et *ErrTarget
	if !errors.As(err, &et) || et.Target != "sharegpt" {
		t.Fatalf("err %v, want *ErrTarget", err)
	}
}

// TestProblemString: the place, then the field, then what is wrong.
func TestProblemString(t *testing.T) {
	for _, tc := range []struct {
		p    Problem
		want string
	}{
		{Problem{File: "f", Line: 3, Field: "a.b", Msg: "bad"}, `f:3: field "a.b": bad`},
		{Problem{File: "f", Line: 3, Msg: "bad"}, "f:3: bad"},
		{Problem{File: "f", Msg: "bad"}, "f: bad"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}
