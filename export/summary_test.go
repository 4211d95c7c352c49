package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

func TestWriteSummaryJSONFixture(t *testing.T) {
	fx := loadFixture(t)
	var buf bytes.Buffer
	if err := WriteSummaryJSON(&buf, &fx.summary, &fx.info); err != nil {
		t.Fatal(err)
	}
	want := string(readFixtureFile(t, "profile_export_aiperf.json"))
	if got := buf.String(); got != want {
		t.Errorf("summary JSON differs from the fixture:\n%s", diffText(got, want))
	}
}

func TestWriteSummaryCSVFixture(t *testing.T) {
	fx := loadFixture(t)
	var buf bytes.Buffer
	if err := WriteSummaryCSV(&buf, &fx.summary); err != nil {
		t.Fatal(err)
	}
	want := string(readFixtureFile(t, "profile_export_aiperf.csv"))
	if got := buf.String(); got != want {
		t.Errorf("summary CSV differs from the fixture:\n%s", diffText(got, want))
	}
}

func TestWriteSummaryCSVCells(t *testing.T) {
	s := &metrics.Summary{Results: []metrics.Result{
		{Tag: "b", Header: `Odd, "quoted"`, Unit: "ms", Avg: 1.005, Min: -0.001, P: [9]float64{8: 2}},
		{Tag: "a", Header: "Good Request Count", Unit: "count", Scalar: true, Avg: 3},
		{Tag: "c", Header: "Nothing", Unit: "ms", Scalar: true, Avg: nan()},
	}}
	var buf bytes.Buffer
	if err := WriteSummaryCSV(&buf, s); err != nil {
		t.Fatal(err)
	}
	// 1.005 is 1.00499999999999989... in binary, so Python prints 1.00 too.
	want := "Metric,avg,sum,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\r\n" +
		`"Odd, ""quoted"" (ms)",1.00,0.00,-0.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,2.00,0.00` + "\r\n" +
		"\r\n" +
		"Metric,Value\r\n" +
		"Good Request Count,3.00\r\n" +
		"Nothing (ms),\r\n"
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestWriteSummaryJSONErrorsAndNulls(t *testing.T) {
	s := &metrics.Summary{
		Results: []metrics.Result{
			{Tag: "request_count", Header: "Request Count", Unit: "requests", Scalar: true, Avg: 3},
			{Tag: "total_token_throughput", Unit: "tokens/sec", Scalar: true, Avg: 1e16},
		},
		Errors: []metrics.ErrorCount{
			{Error: record.Error{Code: 500, Type: "Internal Server Error", Message: `boom "<x>"`}, Count: 2},
			{Error: record.Error{Type: "TimeoutError", Message: "timed out"}, Count: 1},
		},
		StartWallNS: time.Date(2026, 4, 30, 9, 16, 38, 0, time.UTC).UnixNano(),
	}
	type models struct {
		Name string  `json:"name"`
		Mean float64 `json:"mean"`
		Skip string  `json:"skip,omitempty"`
		Tags []int   `json:"tags"`
		Map  map[string]int
	}
	info := &RunInfo{AIPerfVersion: "0.8.0", BenchmarkID: "cf9a", WasCancelled: true, Location: time.UTC,
		InputConfig: models{Name: "m", Mean: 550, Tags: []int{}, Map: map[string]int{"b": 2, "a": 1}}}
	var buf bytes.Buffer
	if err := WriteSummaryJSON(&buf, s, info); err != nil {
		t.Fatal(err)
	}
	want := `{
  "schema_version": "1.0",
  "aiperf_version": "0.8.0",
  "benchmark_id": "cf9a",
  "request_count": {
    "unit": "requests",
    "avg": 3.0
  },
  "input_config": {
    "name": "m",
    "mean": 550.0,
    "tags": [],
    "Map": {
      "a": 1,
      "b": 2
    }
  },
  "was_cancelled": true,
  "error_summary": [
    {
      "error_details": {
        "code": 500,
        "type": "Internal Server Error",
        "message": "boom \"<x>\""
      },
      "count": 2
    },
    {
      "error_details": {
        "type": "TimeoutError",
        "message": "timed out"
      },
      "count": 1
    }
  ],
  "start_time": "2026-04-30T09:16:38",
  "total_token_throughput": {
    "unit": "tokens/sec",
    "avg": 1e+16,
    "p1": null,
    "p5": null,
    "p10": null,
    "p25": null,
    "p50": null,
    "p75": null,
    "p90": null,
    "p95": null,
    "p99": null,
    "min": null,
    "max": null,
    "std": null
  }
}`
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\n%s", got, diffText(got, want))
	}
	if !json.Valid(buf.Bytes()) {
		t.Error("output is not valid JSON")
	}
}

func TestPyDatetime(t *testing.T) {
	tests := []struct {
		ns   int64
		want string
	}{
		{time.Date(2026, 4, 30, 9, 16, 38, 957302000, time.UTC).UnixNano(), "2026-04-30T09:16:38.957302"},
		// Python rounds the float seconds to microseconds, half to even.
		{time.Date(2026, 4, 30, 9, 16, 38, 957302600, time.UTC).UnixNano(), "2026-04-30T09:16:38.957303"},
		{time.Date(2026, 4, 30, 9, 16, 38, 999999900, time.UTC).UnixNano(), "2026-04-30T09:16:39"},
		{time.Date(2026, 4, 30, 9, 16, 38, 0, time.UTC).UnixNano(), "2026-04-30T09:16:38"},
	}
	for _, tt := range tests {
		if got := pyDatetime(time.Unix(0, tt.ns), time.UTC); got != tt.want {
			t.Errorf("pyDatetime(%d) = %s, want %s", tt.ns, got, tt.want)
		}
	}
	// The zone is applied, with no offset written.
	tokyo := time.FixedZone("JST", 9*3600)
	got := pyDatetime(time.Date(2026, 4, 30, 0, 0, 0, 500000000, time.UTC), tokyo)
	if got != "2026-04-30T09:00:00.500000" {
		t.Errorf("in JST: %s", got)
	}
}

func TestWriteInputs(t *testing.T) {
	sessions := []SessionPayloads{
		{SessionID: "session_000000", Payloads: []json.RawMessage{
			json.RawMessage(`{"messages":[{"role":"user","content":"hi \u003cthere\u003e"}],"model":"mock-model","stream":false,"temperature":1.0,"extra":{},"stop":[]}`),
		}},
		{SessionID: "session_000001"},
	}
	var buf bytes.Buffer
	if err := WriteInputs(&buf, len(sessions), sessionsOf(sessions)); err != nil {
		t.Fatal(err)
	}
	want := `{
  "data": [
    {
      "session_id": "session_000000",
      "payloads": [
        {
          "messages": [
            {
              "role": "user",
              "content": "hi <there>"
            }
          ],
          "model": "mock-model",
          "stream": false,
          "temperature": 1.0,
          "extra": {},
          "stop": []
        }
      ]
    },
    {
      "session_id": "session_000001",
      "payloads": []
    }
  ]
}`
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\n%s", got, diffText(got, want))
	}

	buf.Reset()
	if err := WriteInputs(&buf, 0, nil); err != nil || buf.String() != "{\n  \"data\": []\n}" {
		t.Errorf("empty: %q, %v", buf.String(), err)
	}
	bad := []SessionPayloads{{SessionID: "x", Payloads: []json.RawMessage{json.RawMessage(`{"a":`)}}}
	buf.Reset()
	if err := WriteInputs(&buf, len(bad), sessionsOf(bad)); err == nil || !strings.Contains(err.Error(), `session "x" payload 0`) {
		t.Errorf("invalid payload: err %v", err)
	}
	boom := errors.New("boom")
	if err := WriteInputs(&buf, 1, func(int) (SessionPayloads, error) { return SessionPayloads{}, boom }); !errors.Is(err, boom) {
		t.Errorf("session error: %v", err)
	}
}

func sessionsOf(s []SessionPayloads) func(int) (SessionPayloads, error) {
	return func(i int) (SessionPayloads, error) { return s[i], nil }
}

// countingWriter counts the writes it receives.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// TestWriteInputsStreams writes inputs.json in many batches: it arrives in
// several writes, each session asked for once (from several goroutines),
// and equals what encoding/json's indenter lays out for the same data
// (these payloads hold no floats nor characters where the two differ).
func TestWriteInputsStreams(t *testing.T) {
	type session struct {
		SessionID string            `json:"session_id"`
		Payloads  []json.RawMessage `json:"payloads"`
	}
	var all struct {
		Data []session `json:"data"`
	}
	text := strings.Repeat("to be or not to be ", 50)
	for i := range 3000 {
		p := fmt.Sprintf(`{"messages":[{"role":"user","content":"%d %s"}],"model":"m","stream":true,"max_tokens":%d}`, i, text, i)
		all.Data = append(all.Data, session{fmt.Sprintf("session_%06d", i), []json.RawMessage{json.RawMessage(p)}})
	}
	want, err := json.MarshalIndent(&all, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var w countingWriter
	var mu sync.Mutex
	asked := make([]int, len(all.Data))
	err = WriteInputs(&w, len(all.Data), func(i int) (SessionPayloads, error) {
		mu.Lock()
		asked[i]++
		mu.Unlock()
		return SessionPayloads{SessionID: all.Data[i].SessionID, Payloads: all.Data[i].Payloads}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if w.String() != string(want) {
		t.Fatalf("differs from encoding/json:\n%s", diffText(w.String(), string(want)))
	}
	if w.writes < len(all.Data)/inputsBatch {
		t.Fatalf("%d bytes in %d writes: not streamed", len(want), w.writes)
	}
	for i, n := range asked {
		if n != 1 {
			t.Fatalf("session %d asked for %d times", i, n)
		}
	}
	// An error in the middle stops the writing and is returned.
	boom := errors.New("boom")
	err = WriteInputs(io.Discard, len(all.Data), func(i int) (SessionPayloads, error) {
		if i == 1500 {
			return SessionPayloads{}, boom
		}
		return SessionPayloads{SessionID: all.Data[i].SessionID, Payloads: all.Data[i].Payloads}, nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
}

// TestIndentedRawNesting: nesting past the limit (encoding/json's, lowered
// here) is refused, as json.Valid refuses it; at the limit it is accepted.
func TestIndentedRawNesting(t *testing.T) {
	defer func(old int) { maxNesting = old }(maxNesting)
	maxNesting = 5
	for depth, ok := range map[int]bool{5: true, 6: false} {
		raw := strings.Repeat(`{"a":[`, depth/2) + strings.Repeat("[", depth%2) + "1" + strings.Repeat("]", depth%2) + strings.Repeat("]}", depth/2)
		iw := &indentWriter{}
		if err := iw.appendIndentedRaw([]byte(raw), 0); (err == nil) != ok {
			t.Errorf("depth %d (%s): err %v, want accepted %v", depth, raw, err, ok)
		}
	}
}

func FuzzAppendIndentedRaw(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2.50,{"b":null}],"c":"\u003c\n"}`, `"x"`, `-1.5e+3`, ` [ true , false ] `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		iw := &indentWriter{}
		err := iw.appendIndentedRaw(raw, 1)
		if !json.Valid(raw) {
			if err == nil {
				t.Fatalf("invalid %q accepted", raw)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		if !json.Valid(iw.b) {
			t.Fatalf("%q gave invalid %q", raw, iw.b)
		}
		var a, b any
		decode := func(data []byte, v *any) {
			d := json.NewDecoder(bytes.NewReader(data))
			d.UseNumber()
			if err := d.Decode(v); err != nil {
				t.Fatal(err)
			}
		}
		decode(raw, &a)
		decode(iw.b, &b)
		if !jsonEqual(a, b) {
			t.Fatalf("%q re-indented as %q changes its value", raw, iw.b)
		}
		if bytes.ContainsAny(iw.b, "\t\r") {
			t.Fatalf("%q: layout whitespace left in %q", raw, iw.b)
		}
	})
}

// jsonEqual compares decoded JSON values; strings compare after the
// invalid-UTF-8 replacement both sides get.
func jsonEqual(a, b any) bool {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for k, v := range av {
			if !jsonEqual(v, bv[k]) {
				return false
			}
		}
		return true
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !jsonEqual(av[i], bv[i]) {
				return false
			}
		}
		return true
	case string:
		bv, ok := b.(string)
		return ok && strings.ToValidUTF8(av, "\ufffd") == strings.ToValidUTF8(bv, "\ufffd")
	default:
		return a == b
	}
}
