package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

var testOrigin = time.Unix(1759813207, 0)

// streamingRecord is a successful streaming chat request, with the values
// the metrics package would compute for it.
func streamingRecord() (*record.Record, []metrics.RecordValue) {
	rec := &record.Record{
		RequestNum: 45, SessionNum: 45,
		ConversationID: "77aa", TurnIndex: 0,
		XRequestID: "7609", XCorrelationID: "32ee",
		Phase: record.PhaseProfiling, WorkerID: "worker_359d423a",
		CreditIssuedNS: 532000000, StartNS: 532900363, AckNS: 650730976, EndNS: 838764604,
		Streaming: true,
	}
	vals := []metrics.RecordValue{
		{Tag: "input_sequence_length", Unit: "tokens", Value: 550, Int: true},
		{Tag: "time_to_first_token", Unit: "ms", Value: 255.886568},
		{Tag: "inter_chunk_latency", Unit: "ms", List: []float64{4.898437, 5.316006, 5}},
		{Tag: "output_token_throughput_per_user", Unit: "tokens/sec/user", Value: 192.129},
		{Tag: "tiny", Unit: "ms", Value: 1.5e-05},
	}
	return rec, vals
}

func TestRecordWriterLine(t *testing.T) {
	var buf bytes.Buffer
	rw := NewRecordWriter(&buf, record.NewClockAt(testOrigin))
	rw.ProcessorID = "record_processor_1fa47cd7"
	rec, vals := streamingRecord()
	if err := rw.Write(rec, vals); err != nil {
		t.Fatal(err)
	}
	failed := &record.Record{
		RequestNum: 46, SessionNum: 46, XRequestID: "r\"46", Phase: record.PhaseWarmup,
		WorkerID: "worker_1", StartNS: 1000, EndNS: 2000,
		Error:     &record.Error{Type: "ClientConnectorError", Message: "connect: refused\n"},
		Cancelled: true, CancelledNS: 1500,
	}
	if err := rw.Write(failed, []metrics.RecordValue{{Tag: "error_isl", Unit: "tokens", Value: 7, Int: true}}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %d bytes before Flush; want buffering", buf.Len())
	}
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"session_num":45,"request_num":45,"x_request_id":"7609","x_correlation_id":"32ee","conversation_id":"77aa","turn_index":0,"credit_issued_ns":1759813207532000000,"request_start_ns":1759813207532900363,"request_ack_ns":1759813207650730976,"request_end_ns":1759813207838764604,"worker_id":"worker_359d423a","record_processor_id":"record_processor_1fa47cd7","benchmark_phase":"profiling","was_cancelled":false,"cancellation_time_ns":null},"metrics":{"input_sequence_length":{"value":550,"unit":"tokens"},"time_to_first_token":{"value":255.886568,"unit":"ms"},"inter_chunk_latency":{"value":[4.898437,5.316006,5.0],"unit":"ms"},"output_token_throughput_per_user":{"value":192.129,"unit":"tokens/sec/user"},"tiny":{"value":1.5e-05,"unit":"ms"}},"error":null}` + "\n" +
		`{"metadata":{"session_num":46,"request_num":46,"x_request_id":"r\"46","x_correlation_id":"","conversation_id":"","turn_index":0,"credit_issued_ns":null,"request_start_ns":1759813207000001000,"request_ack_ns":null,"request_end_ns":1759813207000002000,"worker_id":"worker_1","record_processor_id":"record_processor_1fa47cd7","benchmark_phase":"warmup","was_cancelled":true,"cancellation_time_ns":1759813207000001500},"metrics":{"error_isl":{"value":7,"unit":"tokens"}},"error":{"code":null,"type":"ClientConnectorError","message":"connect: refused\n"}}` + "\n"
	if got := buf.String(); got != want {
		t.Errorf("%s", diffText(got, want))
	}
}

// recordInfo is profile_export.jsonl's schema, decoded independently with
// encoding/json.
type recordInfo struct {
	Metadata struct {
		SessionNum         int    `json:"session_num"`
		RequestNum         int    `json:"request_num"`
		XRequestID         string `json:"x_request_id"`
		XCorrelationID     string `json:"x_correlation_id"`
		ConversationID     string `json:"conversation_id"`
		TurnIndex          int    `json:"turn_index"`
		CreditIssuedNS     *int64 `json:"credit_issued_ns"`
		RequestStartNS     *int64 `json:"request_start_ns"`
		RequestAckNS       *int64 `json:"request_ack_ns"`
		RequestEndNS       *int64 `json:"request_end_ns"`
		WorkerID           string `json:"worker_id"`
		RecordProcessorID  string `json:"record_processor_id"`
		BenchmarkPhase     string `json:"benchmark_phase"`
		WasCancelled       bool   `json:"was_cancelled"`
		CancellationTimeNS *int64 `json:"cancellation_time_ns"`
	} `json:"metadata"`
	Metrics map[string]struct {
		Value json.RawMessage `json:"value"`
		Unit  string          `json:"unit"`
	} `json:"metrics"`
	Error *struct {
		Code    *int   `json:"code"`
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

func TestRecordWriterRoundTrip(t *testing.T) {
	clock := record.NewClockAt(testOrigin)
	wall := func(ns int64) *int64 { v := clock.Wall(ns); return &v }
	recs := []*record.Record{
		{RequestNum: 0, SessionNum: 0, XRequestID: "a", XCorrelationID: "b", ConversationID: "c\u2028é",
			TurnIndex: 2, Phase: record.PhaseProfiling, WorkerID: "w", CreditIssuedNS: 1, StartNS: 5, AckNS: 6, EndNS: 9, Streaming: true},
		{RequestNum: 1, SessionNum: 7, Phase: record.PhaseWarmup, StartNS: 10, EndNS: 20,
			Error: &record.Error{Code: 503, Type: "Service Unavailable", Message: "<busy> \x01 \"now\""}},
		{RequestNum: 2, SessionNum: 8, Phase: record.PhaseProfiling, StartNS: 10, EndNS: 30,
			Error:     &record.Error{Code: 499, Type: "RequestCancellationError", Message: "Request was cancelled after 0.500 seconds"},
			Cancelled: true, CancelledNS: 30},
		{RequestNum: 3, SessionNum: 9, Phase: record.PhaseProfiling, StartNS: 40, AckNS: 41, EndNS: 50}, // a whole body
	}
	vals := []metrics.RecordValue{
		{Tag: "output_sequence_length", Unit: "tokens", Value: 1 << 40, Int: true},
		{Tag: "request_latency", Unit: "ms", Value: 0.1 + 1e-17},
		{Tag: "inter_chunk_latency", Unit: "ms", List: []float64{}},
		{Tag: "huge", Unit: "ms", Value: 1.2345e300},
	}
	var buf bytes.Buffer
	rw := NewRecordWriter(&buf, clock)
	for _, r := range recs {
		if err := rw.Write(r, vals); err != nil {
			t.Fatal(err)
		}
	}
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rw.ProcessorID, "record_processor_") || len(rw.ProcessorID) != len("record_processor_")+8 {
		t.Errorf("ProcessorID = %q", rw.ProcessorID)
	}

	sc := bufio.NewScanner(&buf)
	for i := 0; sc.Scan(); i++ {
		var got recordInfo
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatalf("line %d: %v\n%s", i, err, sc.Bytes())
		}
		rec, m := recs[i], got.Metadata
		if m.SessionNum != rec.SessionNum || m.RequestNum != rec.RequestNum || m.XRequestID != rec.XRequestID ||
			m.XCorrelationID != rec.XCorrelationID || m.ConversationID != rec.ConversationID ||
			m.TurnIndex != rec.TurnIndex || m.WorkerID != rec.WorkerID || m.RecordProcessorID != rw.ProcessorID ||
			m.BenchmarkPhase != string(rec.Phase) || m.WasCancelled != rec.Cancelled {
			t.Errorf("line %d: metadata %+v, record %+v", i, m, rec)
		}
		optWall := func(ns int64) *int64 {
			if ns == 0 {
				return nil
			}
			return wall(ns)
		}
		ack := func(rec *record.Record) *int64 { // 0.8: streams only
			if !rec.Streaming {
				return nil
			}
			return optWall(rec.AckNS)
		}
		for _, c := range []struct {
			name      string
			got, want *int64
		}{
			{"credit_issued_ns", m.CreditIssuedNS, optWall(rec.CreditIssuedNS)},
			{"request_start_ns", m.RequestStartNS, wall(rec.StartNS)},
			{"request_ack_ns", m.RequestAckNS, ack(rec)},
			{"request_end_ns", m.RequestEndNS, wall(rec.EndNS)},
		} {
			if !reflect.DeepEqual(c.got, c.want) {
				t.Errorf("line %d: %s = %v, want %v", i, c.name, deref(c.got), deref(c.want))
			}
		}
		if rec.Cancelled != (m.CancellationTimeNS != nil) ||
			(rec.Cancelled && *m.CancellationTimeNS != clock.Wall(rec.CancelledNS)) {
			t.Errorf("line %d: cancellation_time_ns = %v", i, deref(m.CancellationTimeNS))
		}
		switch {
		case rec.Error == nil && got.Error != nil:
			t.Errorf("line %d: error %+v, want null", i, got.Error)
		case rec.Error != nil && (got.Error == nil || got.Error.Code == nil || *got.Error.Code != rec.Error.Code ||
			got.Error.Type != rec.Error.Type || got.Error.Message != rec.Error.Message):
			t.Errorf("line %d: error %+v, want %+v", i, got.Error, rec.Error)
		}
		if len(got.Metrics) != len(vals) {
			t.Errorf("line %d: %d metrics, want %d", i, len(got.Metrics), len(vals))
		}
		for _, v := range vals {
			gm := got.Metrics[v.Tag]
			if gm.Unit != v.Unit {
				t.Errorf("%s unit %q", v.Tag, gm.Unit)
			}
			if v.List != nil {
				var l []float64
				if err := json.Unmarshal(gm.Value, &l); err != nil || !reflect.DeepEqual(l, v.List) {
					t.Errorf("%s = %s, want %v", v.Tag, gm.Value, v.List)
				}
				continue
			}
			var f float64
			if err := json.Unmarshal(gm.Value, &f); err != nil || f != v.Value {
				t.Errorf("%s = %s, want %v", v.Tag, gm.Value, v.Value)
			}
			if v.Int && bytes.ContainsAny(gm.Value, ".e") {
				t.Errorf("%s = %s, want an integer literal", v.Tag, gm.Value)
			}
		}
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRecordWriterError(t *testing.T) {
	rw := NewRecordWriter(failWriter{}, record.NewClockAt(testOrigin))
	rec, vals := streamingRecord()
	if err := rw.Write(rec, vals); err != nil {
		t.Fatalf("buffered write failed early: %v", err)
	}
	if err := rw.Flush(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Flush = %v, want the writer's error", err)
	}
}

func BenchmarkRecordWriter(b *testing.B) {
	rec, vals := streamingRecord()
	icl := make([]float64, 200)
	for i := range icl {
		icl[i] = float64(4_500_000+i*12_345) / 1e6 // ms from ns, as computed
	}
	vals[2].List = icl
	rw := NewRecordWriter(io.Discard, record.NewClockAt(testOrigin))
	b.ReportAllocs()
	for b.Loop() {
		if err := rw.Write(rec, vals); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRecordWriterAckBySchema checks a whole (non-streaming) body's ack
// time: AIPerf 0.13 (schema 1.4) writes when its headers arrived, AIPerf
// 0.8 (schema 1.0) null.
func TestRecordWriterAckBySchema(t *testing.T) {
	clock := record.NewClockAt(testOrigin)
	rec := &record.Record{Phase: record.PhaseProfiling, StartNS: 40, AckNS: 41, EndNS: 50}
	for _, tc := range []struct {
		schema string
		want   string
	}{
		{Schema10, `"request_ack_ns":null,`},
		{Schema14, `"request_ack_ns":` + strconv.FormatInt(clock.Wall(41), 10) + `,`},
	} {
		var buf bytes.Buffer
		rw := NewRecordWriter(&buf, clock)
		rw.Schema = tc.schema
		if err := rw.Write(rec, nil); err != nil {
			t.Fatal(err)
		}
		if err := rw.Flush(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), tc.want) {
			t.Errorf("schema %s: %s\nwant it to contain %s", tc.schema, buf.String(), tc.want)
		}
	}
}
