package record

// HTTPTrace is the transport-level timeline of one HTTP request, taken with
// net/http/httptrace when HTTP tracing is on (--show-trace-timing or
// --export-http-trace). Times are monotonic nanoseconds since the run's
// Clock origin, and 0 when the event did not happen. Connection events
// (DNS, connect, TLS) are those that happened before the request had its
// connection; a dial that went on after it (the request was served by
// another connection) is not part of its trace.
//
// The phase methods derive AIPerf's http_req_* durations (reference §2.3,
// k6 naming). Their timeline, for a request that dialed its connection:
//
//	GetConn ─ blocked ─ DNS ─ connecting (TCP+TLS) ─ GotConn ─ sending ─
//	WroteRequest ─ waiting ─ BodyStart ─ receiving ─ BodyEnd
//
// so that blocked+dns+connecting = GotConn−GetConn and
// sending+waiting+receiving = duration = BodyEnd−GotConn, exactly. Each
// method reports false when the events it needs are missing or out of
// order (AIPerf's NoMetricValue).
type HTTPTrace struct {
	// GetConnNS is when the client asked the transport for a connection.
	GetConnNS int64
	// GotConnNS is when it had one. Writing the request starts here: Go's
	// transport has no earlier "request send start" event.
	GotConnNS int64
	// Reused reports that the connection had already carried a request.
	Reused bool
	// DNSStartNS and DNSDoneNS bound the host name lookup of a dial (none
	// for an IP address).
	DNSStartNS, DNSDoneNS int64
	// ConnectStartNS is when the first TCP connect attempt began and
	// ConnectDoneNS when one succeeded.
	ConnectStartNS, ConnectDoneNS int64
	// TLSStartNS and TLSDoneNS bound the TLS handshake (https only).
	TLSStartNS, TLSDoneNS int64
	// WroteHeadersNS is when the request headers were written, and
	// WroteRequestNS when the whole request (headers and body) was.
	WroteHeadersNS, WroteRequestNS int64
	// FirstByteNS is when the first byte of the response (its status line)
	// arrived; HeadersNS when the response headers had been read.
	FirstByteNS, HeadersNS int64
	// BodyStartNS is when the first bytes of the response body were read;
	// BodyEndNS when reading the body ended (its end, a read error, or the
	// client stopping early).
	BodyStartNS, BodyEndNS int64

	// Counted reports that the byte and chunk counts were measured: the
	// request went over a connection the runner dialed itself.
	Counted bool
	// BytesSent and BytesReceived are the bytes this request wrote to and
	// read from its connection: headers and body as on the wire, chunked
	// framing included (TLS records too, for https).
	BytesSent, BytesReceived int64
	// ChunksSent and ChunksReceived count the connection writes and reads
	// (system calls) that moved those bytes.
	ChunksSent, ChunksReceived int64
}

// dialed reports that the request started a dial of its own before it had
// a connection.
func (t *HTTPTrace) dialed() bool { return t.DNSStartNS != 0 || t.ConnectStartNS != 0 }

// span returns to − from when both happened in that order.
func span(from, to int64) (int64, bool) {
	if from == 0 || to == 0 || to < from {
		return 0, false
	}
	return to - from, true
}

// Blocked is the time the request waited for a connection beyond its own
// DNS lookup and connect (http_req_blocked). It is 0 when an idle
// connection was free at once; when the request dialed but another
// connection came free first, it is the whole wait.
func (t *HTTPTrace) Blocked() (int64, bool) {
	wait, ok := span(t.GetConnNS, t.GotConnNS)
	if !ok {
		return 0, false
	}
	if t.Reused {
		if !t.dialed() {
			return 0, true
		}
		return wait, true
	}
	dns, _ := t.DNSLookup()
	conn, _ := t.Connecting()
	return max(wait-dns-conn, 0), true
}

// DNSLookup is the host name lookup time of the connection the request
// used (http_req_dns_lookup): 0 for a reused connection, an IP address, or
// a lookup that had not ended when the request got its connection.
func (t *HTTPTrace) DNSLookup() (int64, bool) {
	if t.GotConnNS == 0 {
		return 0, false
	}
	if t.Reused {
		return 0, true
	}
	d, ok := span(t.DNSStartNS, t.DNSDoneNS)
	if !ok {
		return 0, true
	}
	return d, true
}

// Connecting is the TCP connect time plus the TLS handshake time of a new
// connection, from the first connect attempt to the end of the handshake
// (http_req_connecting); 0 for a reused connection or one the request did
// not dial itself.
func (t *HTTPTrace) Connecting() (int64, bool) {
	if t.GotConnNS == 0 {
		return 0, false
	}
	if t.Reused {
		return 0, true
	}
	end := t.ConnectDoneNS
	if t.TLSStartNS != 0 && t.TLSDoneNS > end {
		end = t.TLSDoneNS
	}
	d, ok := span(t.ConnectStartNS, end)
	if !ok || t.ConnectDoneNS == 0 {
		return 0, true
	}
	return d, true
}

// Sending is the time to write the request (http_req_sending).
func (t *HTTPTrace) Sending() (int64, bool) { return span(t.GotConnNS, t.WroteRequestNS) }

// Waiting is the time from the end of the request to the first byte of the
// response body (http_req_waiting, TTFB).
func (t *HTTPTrace) Waiting() (int64, bool) { return span(t.WroteRequestNS, t.BodyStartNS) }

// Receiving is the time from the first to the last byte of the response
// body (http_req_receiving).
func (t *HTTPTrace) Receiving() (int64, bool) { return span(t.BodyStartNS, t.BodyEndNS) }

// Duration is the request/response exchange without connection setup,
// from the start of sending to the last response byte (http_req_duration,
// = sending + waiting + receiving).
func (t *HTTPTrace) Duration() (int64, bool) {
	s, okS := t.Sending()
	w, okW := t.Waiting()
	r, okR := t.Receiving()
	return s + w + r, okS && okW && okR
}
