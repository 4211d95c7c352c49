package metrics

import (
	"slices"
	"testing"

	"github.com/aiperf-go/aiperf/record"
)

// traceTags are the HTTP trace metrics in profile_export.jsonl order.
var traceTags = []string{
	"http_req_blocked", "http_req_dns_lookup", "http_req_connecting",
	"http_req_sending", "http_req_waiting", "http_req_receiving",
	"http_req_connection_reused", "http_req_data_sent", "http_req_chunks_sent",
	"http_req_data_received", "http_req_chunks_received",
	"http_req_connection_overhead", "http_req_duration", "http_req_total",
}

// tracedRecord is a non-streaming record whose request dialed a new
// connection: GetConn at +0.1 ms, DNS 0.2 ms, connect 0.4 ms, connection at
// +1 ms, request written 0.1 ms later, body from +5.1 ms to +9.1 ms; 2,048
// bytes sent in 2 writes, 3,072 received in 3 reads.
func tracedRecord(start int64) *record.Record {
	r := rec(start, false, 5, chunk{at: 10 * ms, text: "a b c"})
	us := ms / 1000
	r.HTTPTrace = &record.HTTPTrace{
		GetConnNS: start + 100*us, DNSStartNS: start + 110*us, DNSDoneNS: start + 310*us,
		ConnectStartNS: start + 320*us, ConnectDoneNS: start + 720*us,
		GotConnNS: start + ms, WroteRequestNS: start + 1100*us,
		BodyStartNS: start + 5100*us, BodyEndNS: start + 9100*us,
		Counted: true, BytesSent: 2048, ChunksSent: 2, BytesReceived: 3072, ChunksReceived: 3,
	}
	return r
}

func tracedChat() *Config {
	cfg := plainChat()
	cfg.HTTPTrace = true
	return cfg
}

func TestComputeHTTPTrace(t *testing.T) {
	vals := Compute(tracedChat(), tracedRecord(5*ms))
	var got []string
	for _, tag := range tags(vals) {
		if m, _ := Lookup(tag); m.Flags.Has(FlagHTTPTraceOnly) {
			got = append(got, tag)
		}
	}
	if !slices.Equal(got, traceTags) {
		t.Fatalf("trace tags\n got %v\nwant %v", got, traceTags)
	}
	m := valueMap(vals)
	for _, w := range []struct {
		tag   string
		value float64
		unit  string
		isInt bool
	}{
		{"http_req_blocked", 0.3, "ms", false}, // 0.9 ms wait - 0.2 DNS - 0.4 connect
		{"http_req_dns_lookup", 0.2, "ms", false},
		{"http_req_connecting", 0.4, "ms", false},
		{"http_req_sending", 0.1, "ms", false},
		{"http_req_waiting", 4, "ms", false},
		{"http_req_receiving", 4, "ms", false},
		{"http_req_connection_reused", 0, "ratio", true},
		{"http_req_data_sent", 2, "KB", false}, // 2048 / 1024
		{"http_req_chunks_sent", 2, "count", true},
		{"http_req_data_received", 3, "KB", false},
		{"http_req_chunks_received", 3, "count", true},
		{"http_req_connection_overhead", 0.9, "ms", false}, // GotConn - GetConn
		{"http_req_duration", 8.1, "ms", false},
		{"http_req_total", 9, "ms", false}, // BodyEnd - GetConn
	} {
		v, ok := m[w.tag]
		if !ok {
			t.Errorf("%s missing", w.tag)
			continue
		}
		if !near(v.Value, w.value, 1e-9) || v.Unit != w.unit || v.Int != w.isInt {
			t.Errorf("%s = %v %q int=%v, want %v %q int=%v", w.tag, v.Value, v.Unit, v.Int, w.value, w.unit, w.isInt)
		}
	}
}

func TestComputeHTTPTraceAbsent(t *testing.T) {
	hasTrace := func(vals []RecordValue) bool {
		for _, v := range vals {
			if m, _ := Lookup(v.Tag); m.Flags.Has(FlagHTTPTraceOnly) {
				return true
			}
		}
		return false
	}
	failed := tracedRecord(5 * ms)
	failed.Error = &record.Error{Code: 500, Type: "Internal Server Error"}
	uncounted := tracedRecord(5 * ms)
	uncounted.HTTPTrace.Counted = false
	for name, tc := range map[string]struct {
		cfg  *Config
		rec  *record.Record
		want bool
	}{
		"tracing off":           {plainChat(), tracedRecord(5 * ms), false},
		"record without trace":  {tracedChat(), rec(5*ms, false, 5, chunk{at: ms, text: "a"}), false},
		"failed request":        {tracedChat(), failed, false},
		"traced valid request":  {tracedChat(), tracedRecord(5 * ms), true},
		"custom transport, too": {tracedChat(), uncounted, true},
	} {
		if got := hasTrace(Compute(tc.cfg, tc.rec)); got != tc.want {
			t.Errorf("%s: trace metrics %v, want %v", name, got, tc.want)
		}
	}
	m := valueMap(Compute(tracedChat(), uncounted))
	for _, tag := range []string{"http_req_data_sent", "http_req_chunks_sent", "http_req_data_received", "http_req_chunks_received"} {
		if _, ok := m[tag]; ok {
			t.Errorf("%s without counted bytes", tag)
		}
	}
}

func TestHTTPTraceCatalog(t *testing.T) {
	for _, tag := range traceTags {
		m, ok := Lookup(tag)
		if !ok {
			t.Fatalf("%s not in the catalogue", tag)
		}
		if m.Enabled(plainChat()) || !m.Enabled(tracedChat()) {
			t.Errorf("%s: enabled without tracing or disabled with it", tag)
		}
		if m.Console(tracedChat()) || !m.Exported() || m.Kind != KindRecord {
			t.Errorf("%s: console %v, exported %v, kind %v", tag, m.Console(tracedChat()), m.Exported(), m.Kind)
		}
	}
	// --goodput may name a trace metric only when traces are collected.
	slos, err := ParseGoodput("http_req_waiting:50")
	if err != nil {
		t.Fatal(err)
	}
	cfg := plainChat()
	cfg.Goodput = slos
	if cfg.Validate() == nil {
		t.Error("goodput on http_req_waiting accepted without tracing")
	}
	cfg.HTTPTrace = true
	if err := cfg.Validate(); err != nil {
		t.Errorf("goodput on http_req_waiting with tracing: %v", err)
	}
}

func TestSummaryHTTPTrace(t *testing.T) {
	// Two requests: a new connection (above) and a reused one that waited
	// 2 ms for its body and read it in 1 ms, 1,024 bytes each way.
	r2 := rec(20*ms, false, 5, chunk{at: 4 * ms, text: "a b c"})
	r2.HTTPTrace = &record.HTTPTrace{
		GetConnNS: 20 * ms, GotConnNS: 20 * ms, Reused: true, WroteRequestNS: 21 * ms,
		BodyStartNS: 23 * ms, BodyEndNS: 24 * ms,
		Counted: true, BytesSent: 1024, ChunksSent: 1, BytesReceived: 1024, ChunksReceived: 1,
	}
	s := summarise(tracedChat(), tracedRecord(5*ms), r2)
	for _, w := range []struct {
		tag           string
		avg, min, max float64
		unit          string
	}{
		{"http_req_waiting", 3, 2, 4, "ms"},
		{"http_req_connection_reused", 0.5, 0, 1, "ratio"},
		{"http_req_data_sent", 1.5, 1, 2, "KB"},
		{"http_req_chunks_received", 2, 1, 3, "count"},
		{"http_req_duration", (8.1 + 4) / 2, 4, 8.1, "ms"},
		{"http_req_connecting", 0.2, 0, 0.4, "ms"},
	} {
		r := result(t, s, w.tag)
		if !near(r.Avg, w.avg, 1e-9) || !near(r.Min, w.min, 1e-9) || !near(r.Max, w.max, 1e-9) || r.Unit != w.unit || r.Count != 2 || r.Console {
			t.Errorf("%s: avg %v min %v max %v %q count %d console %v, want %v %v %v %q 2 false",
				w.tag, r.Avg, r.Min, r.Max, r.Unit, r.Count, r.Console, w.avg, w.min, w.max, w.unit)
		}
	}
	// No trace metric without traces, even when enabled (the fixture runs).
	for _, r := range summarise(tracedChat(), baselineRecords()...).Results {
		if m, _ := Lookup(r.Tag); m.Flags.Has(FlagHTTPTraceOnly) {
			t.Errorf("%s in a summary of records without traces", r.Tag)
		}
	}
}
