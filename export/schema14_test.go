package export

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// fixture14 is the baseline fixture's summary with the counts and sums that
// schema 1.4 writes, an error-adjusted result lacking some statistics (as
// 0.13 writes adj_*), and run_info filled.
func fixture14(t *testing.T) (*metrics.Summary, *RunInfo) {
	fx := loadFixture(t)
	s := fx.summary
	s.Results = slices.Clone(s.Results)
	for i := range s.Results {
		r := &s.Results[i]
		if m, ok := metrics.Lookup(r.Tag); ok {
			r.Header = m.HeaderFor(&metrics.Config{Schema14: true}) // 0.13 renamed a few
		}
		if !r.Scalar {
			r.Count = 10
			r.Sum = r.Avg * 10
		}
	}
	s.Results = append(s.Results, metrics.Result{Tag: "adj_request_latency", Header: "Adjusted Request Latency", Unit: "ms",
		Min: 1.5, P: [9]float64{1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5}, Count: 12,
		Missing: []string{"avg", "p90", "p95", "p99", "max", "std", "sum"}})
	s.Errors = []metrics.ErrorCount{
		{Error: record.Error{Code: 500, Type: "Internal Server Error", Message: `{"error":"injected"}`}, Count: 2},
		{Error: record.Error{Type: "StreamError", Message: "overloaded"}, Count: 1},
	}
	info := fx.info
	info.SchemaVersion = Schema14
	seed := uint64(7)
	info.Run = RunIdentity{RandomSeed: &seed}
	info.CLICommand = "aiperf profile --model 'm'"
	return &s, &info
}

func TestWriteSummaryJSON14Golden(t *testing.T) {
	s, info := fixture14(t)
	var buf bytes.Buffer
	if err := WriteSummaryJSON(&buf, s, info); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(buf.Bytes()) {
		t.Fatalf("invalid JSON:\n%s", buf.String())
	}
	checkGolden(t, "baseline-chat-1.4/profile_export_aiperf.json", buf.Bytes())
}

func TestWriteSummaryCSV14Golden(t *testing.T) {
	s, _ := fixture14(t)
	var buf bytes.Buffer
	if err := WriteSummaryCSV14(&buf, s); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\r\n") {
		t.Errorf("header: %q", strings.SplitN(buf.String(), "\n", 2)[0])
	}
	checkGolden(t, "baseline-chat-1.4/profile_export_aiperf.csv", buf.Bytes())
}

func TestRecordWriter14Golden(t *testing.T) {
	var buf bytes.Buffer
	rw := NewRecordWriter(&buf, record.NewClockAt(testOrigin))
	rw.ProcessorID = "record_processor_1fa47cd7"
	rw.Schema, rw.WarmupPhase = Schema14, true
	rec, vals := streamingRecord()
	lines := []struct {
		rec  *record.Record
		vals []metrics.RecordValue
	}{{rec, vals}}
	errVals := []metrics.RecordValue{{Tag: "error_isl", Unit: "tokens", Value: 7, Int: true}}
	for i, e := range []record.Error{
		{Code: 500, Type: "Internal Server Error", Message: `{"error":{"message":"injected error"}}`},
		{Type: "StreamError", Message: "it's down"},
		{Type: "IncompleteStream", Message: "stream ended in the middle of an event"},
		{Type: "ConnectionResetError", Message: "sse: read: connection reset by peer"},
		{Type: "TimeoutError", Message: "request timed out after 1s"},
	} {
		lines = append(lines, struct {
			rec  *record.Record
			vals []metrics.RecordValue
		}{&record.Record{SessionNum: 46 + i, XRequestID: "r46", XCorrelationID: "c46", Phase: record.PhaseProfiling,
			WorkerID: "worker_1", StartNS: 1000, EndNS: 2000, Error: &e}, errVals})
	}
	lines = append(lines, struct {
		rec  *record.Record
		vals []metrics.RecordValue
	}{&record.Record{SessionNum: 60, Phase: record.PhaseWarmup, WorkerID: "worker_1", StartNS: 1000, EndNS: 2000,
		Cancelled: true, CancelledNS: 1500, Error: &record.Error{Type: "CancelledError", Message: "cancelled"}}, errVals})
	for _, l := range lines {
		if err := rw.Write(l.rec, l.vals); err != nil {
			t.Fatal(err)
		}
	}
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if !json.Valid([]byte(line)) {
			t.Fatalf("invalid line %s", line)
		}
	}
	checkGolden(t, "records14.jsonl.golden", buf.Bytes())
}

func TestError14(t *testing.T) {
	tests := []struct {
		name string
		in   record.Error
		want ErrorDetails14
	}{
		{"http status kept", record.Error{Code: 500, Type: "Internal Server Error", Message: "body"},
			ErrorDetails14{Code: 500, Type: "Internal Server Error", Message: "body"}},
		{"sse error event", record.Error{Type: "StreamError", Message: "overloaded"},
			ErrorDetails14{Code: 502, Type: "SSEResponseError", Message: "SSEResponseError('Error occurred in SSE response: overloaded')", CauseChain: []string{"SSEResponseError"}}},
		{"sse error with quote", record.Error{Type: "StreamError", Message: `it's`},
			ErrorDetails14{Code: 502, Type: "SSEResponseError", Message: `SSEResponseError("Error occurred in SSE response: it's")`, CauseChain: []string{"SSEResponseError"}}},
		{"cut stream", record.Error{Type: "IncompleteStream", Message: "x"},
			ErrorDetails14{Type: "ClientPayloadError",
				Message:    `ClientPayloadError("Response payload is not completed: <TransferEncodingError: 400, message='Not enough data to satisfy transfer length header.'>")`,
				Cause:      "<TransferEncodingError: 400, message='Not enough data to satisfy transfer length header.'>",
				CauseChain: []string{"ClientPayloadError", "TransferEncodingError"}}},
		// As aiohttp reports it under AIPerf 0.13 (seen in a 0.13 run).
		{"reset before the stream", record.Error{Type: "ConnectionResetError", Message: "Post: reset"},
			ErrorDetails14{Type: "ClientOSError", Message: "ClientOSError(104, 'Connection reset by peer')",
				Cause: "ConnectionResetError(104, 'Connection reset by peer')", CauseChain: []string{"ClientOSError", "ConnectionResetError"}}},
		{"other transport error", record.Error{Type: "TimeoutError", Message: "t"},
			ErrorDetails14{Type: "TimeoutError", Message: "t", CauseChain: []string{"TimeoutError"}}},
		{"untyped", record.Error{Message: "m"}, ErrorDetails14{Message: "m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Error14(tt.in)
			if got.Code != tt.want.Code || got.Type != tt.want.Type || got.Message != tt.want.Message ||
				got.Cause != tt.want.Cause || !slices.Equal(got.CauseChain, tt.want.CauseChain) {
				t.Errorf("Error14(%+v) =\n %+v\nwant\n %+v", tt.in, got, tt.want)
			}
		})
	}
}

// TestSchema10Unchanged guards that RunInfo's 1.4 fields leave the 1.0
// layout alone.
func TestSchema10Unchanged(t *testing.T) {
	s, info := fixture14(t)
	info.SchemaVersion = Schema10
	var buf bytes.Buffer
	if err := WriteSummaryJSON(&buf, s, info); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"run_info"`, `"is_complete"`, `"count": 10`, `"cause_chain"`} {
		if bytes.Contains(buf.Bytes(), []byte(k)) {
			t.Errorf("schema 1.0 JSON holds %s", k)
		}
	}
	if _, err := os.Stat("testdata/baseline-chat/profile_export_aiperf.json"); err != nil {
		t.Fatal(err)
	}
}

// TestSummary14SmallFloats: 1.4 statistics are written as AIPerf 0.13's
// orjson writes them: small values in decimal form down to 1e-5, shorter
// exponents below (Python's repr, the 1.0 layout, writes 4.6508e-05).
func TestSummary14SmallFloats(t *testing.T) {
	s := &metrics.Summary{Results: []metrics.Result{
		{Tag: "tiny", Unit: "ms", Scalar: true, Avg: 4.6508e-05},
		{Tag: "tinier", Unit: "ms", Scalar: true, Avg: 1e-06},
	}}
	var buf bytes.Buffer
	if err := WriteSummaryJSON(&buf, s, &RunInfo{SchemaVersion: Schema14}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"tiny": {
    "unit": "ms",
    "avg": 0.000046508
  }`, `"avg": 1e-6`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, buf.String())
		}
	}
}
