package export

import (
	"strconv"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// traceTimingTitle is the title AIPerf's HttpTraceConsoleExporter gives
// the --show-trace-timing table.
const traceTimingTitle = "NVIDIA AIPerf | HTTP Trace Timing"

// appendTraceTimingTable appends two empty lines and the HTTP Trace Timing
// table: the results of HTTP_TRACE_ONLY metrics (never ERROR_ONLY) in
// DisplayOrder, shaped like the metrics table; nothing without any.
func appendTraceTimingTable(b []byte, s *metrics.Summary) []byte {
	var shown []*metrics.Result
	for i := range s.Results {
		m, ok := metrics.Lookup(s.Results[i].Tag)
		if ok && m.Flags.Has(metrics.FlagHTTPTraceOnly) && !m.Flags.Has(metrics.FlagErrorOnly) {
			shown = append(shown, &s.Results[i])
		}
	}
	return appendStatsTable(b, traceTimingTitle, shown)
}

// TraceType is the "trace_type" of the trace_data objects aiperf-go
// writes; AIPerf writes "aiohttp" for its own client.
const TraceType = "net/http"

// AppendTraceData appends t as the JSON object written under "trace_data"
// with --export-http-trace (reference §2.3; field names as AIPerf's
// AioHttpTraceDataExport where the event is the same):
//
//	trace_type, get_conn_ns, connection_reused, dns_lookup_start_ns,
//	dns_lookup_end_ns, tcp_connect_start_ns, tcp_connect_end_ns,
//	tls_handshake_start_ns, tls_handshake_end_ns, request_send_start_ns
//	(the connection was obtained), request_headers_sent_ns,
//	request_send_end_ns, response_first_byte_ns,
//	response_headers_received_ns, response_receive_start_ns,
//	response_receive_end_ns, data_sent_bytes, data_received_bytes,
//	chunks_sent, chunks_received, blocked_ns, dns_lookup_ns, connecting_ns,
//	sending_ns, waiting_ns, receiving_ns, duration_ns.
//
// Timestamps are wall-clock Unix nanoseconds (clock.Wall) and durations
// nanoseconds. An event that did not happen, a count that was not measured
// and a duration without a value are left out, as AIPerf does. A nil t
// appends null.
func AppendTraceData(b []byte, t *record.HTTPTrace, clock *record.Clock) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"trace_type":"`+TraceType+`"`...)
	wall := func(name string, ns int64) {
		if ns != 0 {
			b = append(b, `,"`+name+`":`...)
			b = strconv.AppendInt(b, clock.Wall(ns), 10)
		}
	}
	num := func(name string, v int64) {
		b = append(b, `,"`+name+`":`...)
		b = strconv.AppendInt(b, v, 10)
	}
	wall("get_conn_ns", t.GetConnNS)
	if t.GotConnNS != 0 {
		b = append(b, `,"connection_reused":`...)
		b = strconv.AppendBool(b, t.Reused)
	}
	wall("dns_lookup_start_ns", t.DNSStartNS)
	wall("dns_lookup_end_ns", t.DNSDoneNS)
	wall("tcp_connect_start_ns", t.ConnectStartNS)
	wall("tcp_connect_end_ns", t.ConnectDoneNS)
	wall("tls_handshake_start_ns", t.TLSStartNS)
	wall("tls_handshake_end_ns", t.TLSDoneNS)
	wall("request_send_start_ns", t.GotConnNS)
	wall("request_headers_sent_ns", t.WroteHeadersNS)
	wall("request_send_end_ns", t.WroteRequestNS)
	wall("response_first_byte_ns", t.FirstByteNS)
	wall("response_headers_received_ns", t.HeadersNS)
	wall("response_receive_start_ns", t.BodyStartNS)
	wall("response_receive_end_ns", t.BodyEndNS)
	if t.Counted {
		num("data_sent_bytes", t.BytesSent)
		num("data_received_bytes", t.BytesReceived)
		num("chunks_sent", t.ChunksSent)
		num("chunks_received", t.ChunksReceived)
	}
	for _, d := range [...]struct {
		name string
		get  func() (int64, bool)
	}{
		{"blocked_ns", t.Blocked},
		{"dns_lookup_ns", t.DNSLookup},
		{"connecting_ns", t.Connecting},
		{"sending_ns", t.Sending},
		{"waiting_ns", t.Waiting},
		{"receiving_ns", t.Receiving},
		{"duration_ns", t.Duration},
	} {
		if v, ok := d.get(); ok {
			num(d.name, v)
		}
	}
	return append(b, '}')
}
