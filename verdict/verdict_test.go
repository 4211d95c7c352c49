package verdict

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/metrics"
)

// summary is a small run: TTFT with every stat distinct, a throughput and
// three valid requests, no errors.
func summary() *metrics.Summary {
	ttft := metrics.Result{Tag: "time_to_first_token", Unit: "ms", Avg: 100, Min: 10, Max: 400, Std: 50, Count: 3}
	for i := range ttft.P {
		ttft.P[i] = float64(200 + i) // p1=200 … p99=208
	}
	return &metrics.Summary{Valid: 3, Results: []metrics.Result{
		ttft,
		{Tag: "request_throughput", Unit: "requests/sec", Scalar: true, Avg: 60},
		{Tag: "request_count", Unit: "requests", Scalar: true, Avg: 3},
	}}
}

func mustParse(t *testing.T, exprs ...string) []Threshold {
	t.Helper()
	ts, err := ParseAll(exprs)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func TestEvaluateEveryStat(t *testing.T) {
	s := summary()
	want := map[string]float64{"avg": 100, "min": 10, "max": 400, "std": 50,
		"p1": 200, "p5": 201, "p10": 202, "p25": 203, "p50": 204, "p75": 205, "p90": 206, "p95": 207, "p99": 208}
	for stat, v := range want {
		vd := Evaluate(s, mustParse(t, "time_to_first_token."+stat+"=="+number(v)))
		c := vd.Checks[0]
		if !vd.Pass || c.Actual == nil || *c.Actual != v {
			t.Errorf("%s: %+v", stat, c)
		}
	}
}

func TestEvaluate(t *testing.T) {
	for _, tt := range []struct {
		expr   string
		pass   bool
		actual float64 // -1: none
		reason string
	}{
		{"time_to_first_token.p99<300", true, 208, ""},
		{"time_to_first_token.p99<208", false, 208, ""},
		{"time_to_first_token.p99<=208", true, 208, ""},
		{"request_throughput.avg>50", true, 60, ""},
		{"request_throughput>=61", false, 60, ""},
		{"request_count==3", true, 3, ""},
		{"request_count!=3", false, 3, ""},
		// Left out of the summary when zero: taken from the counts.
		{"error_request_count<1", true, 0, ""},
		{"error_request_count>0", false, 0, ""},
		// Not produced: a failure with a reason, never a silent pass.
		{"inter_token_latency.p99<1000", false, -1, "did not produce inter_token_latency; it needs --streaming"},
		{"goodput>0", false, -1, "needs --goodput"},
		{"http_req_waiting.p50<1", false, -1, "needs --export-http-trace"},
		{"request_latency.avg<1", false, -1, "did not produce request_latency"},
	} {
		vd := Evaluate(summary(), mustParse(t, tt.expr))
		c := vd.Checks[0]
		if c.Pass != tt.pass || vd.Pass != tt.pass || (vd.Failed == 1) == tt.pass {
			t.Errorf("%s: pass %v, want %v", tt.expr, c.Pass, tt.pass)
		}
		switch {
		case tt.actual < 0 && c.Actual != nil:
			t.Errorf("%s: actual %v, want none", tt.expr, *c.Actual)
		case tt.actual >= 0 && (c.Actual == nil || *c.Actual != tt.actual):
			t.Errorf("%s: actual %v, want %v", tt.expr, c.Actual, tt.actual)
		}
		if !strings.Contains(c.Reason, tt.reason) || (tt.reason == "") != (c.Reason == "") {
			t.Errorf("%s: reason %q, want %q", tt.expr, c.Reason, tt.reason)
		}
	}
}

func TestEvaluateNoSummary(t *testing.T) {
	vd := Evaluate(nil, mustParse(t, "request_count>0", "error_request_count<1"))
	if vd.Pass || vd.Failed != 2 || vd.Checks[0].Reason != "the run produced no summary" {
		t.Fatalf("%+v", vd)
	}
}

func TestVerdictJSON(t *testing.T) {
	vd := Evaluate(summary(), mustParse(t, "time_to_first_token.p99<300", "inter_token_latency.p99<10"))
	vd.RunID, vd.Location, vd.RunStatus = "20261126T000000Z-abcd", "file:///tmp/runs/x/", "complete"
	b, err := vd.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		SchemaVersion string `json:"schema_version"`
		RunID         string `json:"run_id"`
		Pass          bool   `json:"pass"`
		Passed        int    `json:"passed"`
		Failed        int    `json:"failed"`
		Checks        []struct {
			Expression, Metric, Stat, Comparator, Unit, Reason string
			Threshold                                          float64
			Actual                                             *float64
			Pass                                               bool
		} `json:"checks"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	c := got.Checks[0]
	if got.SchemaVersion != "1" || got.RunID != vd.RunID || got.Pass || got.Passed != 1 || got.Failed != 1 ||
		c.Expression != "time_to_first_token.p99<300" || c.Metric != "time_to_first_token" || c.Stat != "p99" ||
		c.Comparator != "<" || c.Threshold != 300 || c.Unit != "ms" || *c.Actual != 208 || !c.Pass {
		t.Fatalf("%s", b)
	}
	if got.Checks[1].Actual != nil || got.Checks[1].Reason == "" || !bytes.Contains(b, []byte(`"actual": null`)) {
		t.Fatalf("missing metric: %s", b)
	}
}

func TestWriteTable(t *testing.T) {
	vd := Evaluate(summary(), mustParse(t, "time_to_first_token.p99<300", "request_throughput>70", "inter_token_latency.p99<10"))
	var b bytes.Buffer
	if err := WriteTable(&b, vd); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"METRIC", "STAT", "COMPARATOR", "THRESHOLD", "ACTUAL", "VERDICT",
		"time_to_first_token  p99   <           300 ms",
		"208.00 ms",
		"request_throughput   avg   >           70 requests/sec",
		"n/a",
		"inter_token_latency.p99<10: the run did not produce inter_token_latency",
		"FAIL: 2 of 3 thresholds failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "PASS\n"); n != 1 {
		t.Errorf("%d PASS rows:\n%s", n, out)
	}
}

func TestMarkdown(t *testing.T) {
	vd := Evaluate(summary(), mustParse(t, "time_to_first_token.p99<300"))
	vd.RunID, vd.Location, vd.RunStatus = "RUN1", "s3://bench/runs/RUN1/", "complete"
	md := Markdown(vd)
	for _, want := range []string{
		"### ✅ aiperf thresholds: PASS: all 1 threshold passed",
		"Run `RUN1`, results in `s3://bench/runs/RUN1/` (run complete).",
		"| Metric | Stat | Comparator | Threshold | Actual | Verdict |",
		"| `time_to_first_token` | p99 | `<` | 300 ms | 208.00 ms | ✅ pass |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	vd = Evaluate(summary(), mustParse(t, "goodput>1"))
	if md := Markdown(vd); !strings.Contains(md, "### ❌") || !strings.Contains(md, "| n/a | ❌ fail: the run did not produce goodput") {
		t.Errorf("failing markdown:\n%s", md)
	}
}

func TestAppendFileAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.md")
	if err := os.WriteFile(path, []byte("earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"one\n", "two\n"} {
		if err := AppendFile(path, s); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "earlier step\none\ntwo\n" {
		t.Fatalf("%q", b)
	}
	if err := AppendFile(filepath.Join(path, "not-a-dir"), "x"); err == nil || !strings.Contains(err.Error(), "step summary") {
		t.Fatalf("error %v", err)
	}
}
