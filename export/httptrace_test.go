package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// tracedRecords are two non-streaming requests with HTTP traces (times in
// ns from the clock's origin):
//   - a new connection: GetConn 1,000,000, DNS 0.2 ms, connect 0.4 ms,
//     connection at 2 ms, request written at 2.1 ms, body 6.1–10.1 ms;
//     2,048 bytes sent in 2 writes, 3,072 received in 3 reads;
//   - a reused one: connection at 20 ms, written at 21 ms, body 23–24 ms;
//     1,024 bytes each way in one write and one read.
func tracedRecords() []*record.Record {
	mk := func(start, end int64, t *record.HTTPTrace) *record.Record {
		return &record.Record{
			Phase: record.PhaseProfiling, StartNS: start, EndNS: end, InputTokens: 4,
			XRequestID: "req", Responses: []record.Response{{PerfNS: end, Text: "a b"}},
			HTTPTrace: t,
		}
	}
	return []*record.Record{
		mk(900_000, 10_100_000, &record.HTTPTrace{
			GetConnNS: 1_000_000, DNSStartNS: 1_100_000, DNSDoneNS: 1_300_000,
			ConnectStartNS: 1_300_000, ConnectDoneNS: 1_700_000, GotConnNS: 2_000_000,
			WroteHeadersNS: 2_050_000, WroteRequestNS: 2_100_000, FirstByteNS: 6_000_000,
			HeadersNS: 6_050_000, BodyStartNS: 6_100_000, BodyEndNS: 10_100_000,
			Counted: true, BytesSent: 2048, ChunksSent: 2, BytesReceived: 3072, ChunksReceived: 3,
		}),
		mk(19_900_000, 24_000_000, &record.HTTPTrace{
			GetConnNS: 19_950_000, GotConnNS: 20_000_000, Reused: true,
			WroteRequestNS: 21_000_000, BodyStartNS: 23_000_000, BodyEndNS: 24_000_000,
			Counted: true, BytesSent: 1024, ChunksSent: 1, BytesReceived: 1024, ChunksReceived: 1,
		}),
	}
}

func tracedSummary() *metrics.Summary {
	cfg := &metrics.Config{TokenizesInput: true, HTTPTrace: true}
	acc := metrics.NewAccumulator(cfg)
	for _, r := range tracedRecords() {
		acc.Add(r, metrics.Compute(cfg, r))
	}
	return acc.Summary(nil)
}

// TestTraceTimingGolden: with ShowTraceTiming the console report has the
// HTTP Trace Timing table after the metrics table, in AIPerf's display
// order. Expected rows, by hand: blocked (0.4 + 0) / 2 = 0.2 ms;
// DNS 0.1 ms avg; connecting 0.2; sending (0.1 + 1) / 2 = 0.55; waiting
// (4 + 2) / 2 = 3; receiving (4 + 1) / 2 = 2.5; reused 0.5; data sent
// 1.5 KB; chunks sent 1.5; received 2 KB; chunks received 2; overhead
// (1 + 0) / 2 = 0.5; duration (8.1 + 4) / 2 = 6.05; total (9.1 + 4) / 2 =
// 6.55.
func TestTraceTimingGolden(t *testing.T) {
	s := tracedSummary()
	var buf bytes.Buffer
	if err := WriteConsoleExport(&buf, s, &RunInfo{ShowTraceTiming: true}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "console_trace_timing.golden", buf.Bytes())

	buf.Reset()
	if err := WriteConsoleExport(&buf, s, &RunInfo{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "HTTP") {
		t.Errorf("HTTP trace rows without ShowTraceTiming:\n%s", buf.String())
	}
}

func TestTraceTimingTableEmpty(t *testing.T) {
	if b := appendTraceTimingTable(nil, &metrics.Summary{}); len(b) != 0 {
		t.Errorf("table without trace results: %q", b)
	}
}

func TestRecordWriterTraceData(t *testing.T) {
	clock := record.NewClockAt(testOrigin)
	origin := testOrigin.UnixNano()
	var buf bytes.Buffer
	rw := NewRecordWriter(&buf, clock)
	rw.TraceData = true
	recs := tracedRecords()
	noTrace := &record.Record{Phase: record.PhaseProfiling, StartNS: 5, EndNS: 6,
		Error: &record.Error{Type: "RequestError", Message: "bad url"}}
	for _, r := range append(recs, noTrace) {
		if err := rw.Write(r, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines", len(lines))
	}
	// Key order: metrics, trace_data, error.
	if !strings.Contains(lines[0], `},"metrics":{},"trace_data":{"trace_type":"net/http","get_conn_ns":`) ||
		!strings.Contains(lines[0], `},"error":null}`) {
		t.Errorf("line layout: %s", lines[0])
	}
	var doc struct {
		TraceData map[string]any `json:"trace_data"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &doc); err != nil {
		t.Fatal(err)
	}
	w := func(ns int64) float64 { return float64(origin + ns) }
	want := map[string]any{
		"trace_type":                   "net/http",
		"get_conn_ns":                  w(1_000_000),
		"connection_reused":            false,
		"dns_lookup_start_ns":          w(1_100_000),
		"dns_lookup_end_ns":            w(1_300_000),
		"tcp_connect_start_ns":         w(1_300_000),
		"tcp_connect_end_ns":           w(1_700_000),
		"request_send_start_ns":        w(2_000_000),
		"request_headers_sent_ns":      w(2_050_000),
		"request_send_end_ns":          w(2_100_000),
		"response_first_byte_ns":       w(6_000_000),
		"response_headers_received_ns": w(6_050_000),
		"response_receive_start_ns":    w(6_100_000),
		"response_receive_end_ns":      w(10_100_000),
		"data_sent_bytes":              2048.0,
		"data_received_bytes":          3072.0,
		"chunks_sent":                  2.0,
		"chunks_received":              3.0,
		"blocked_ns":                   400_000.0, // 1 ms wait - 0.2 DNS - 0.4 connect
		"dns_lookup_ns":                200_000.0,
		"connecting_ns":                400_000.0,
		"sending_ns":                   100_000.0,
		"waiting_ns":                   4_000_000.0,
		"receiving_ns":                 4_000_000.0,
		"duration_ns":                  8_100_000.0,
	}
	if len(doc.TraceData) != len(want) {
		t.Errorf("trace_data has %d keys, want %d: %v", len(doc.TraceData), len(want), doc.TraceData)
	}
	for k, v := range want {
		if doc.TraceData[k] != v {
			t.Errorf("%s = %v, want %v", k, doc.TraceData[k], v)
		}
	}
	// The reused connection: no dial events, its connection reused.
	if !strings.Contains(lines[1], `"connection_reused":true`) || strings.Contains(lines[1], "tcp_connect") ||
		!strings.Contains(lines[1], `"blocked_ns":0,"dns_lookup_ns":0,"connecting_ns":0,`) {
		t.Errorf("reused: %s", lines[1])
	}
	if !strings.Contains(lines[2], `"trace_data":null,"error":{`) {
		t.Errorf("record without a trace: %s", lines[2])
	}
}

func TestRecordWriterWithoutTraceData(t *testing.T) {
	var buf bytes.Buffer
	rw := NewRecordWriter(&buf, record.NewClockAt(testOrigin))
	if err := rw.Write(tracedRecords()[0], nil); err != nil {
		t.Fatal(err)
	}
	_ = rw.Flush()
	if strings.Contains(buf.String(), "trace_data") {
		t.Errorf("trace_data written without TraceData: %s", buf.String())
	}
}
