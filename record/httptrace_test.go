package record

import "testing"

// phases are the values of every phase method of a trace; -1 means no value.
type phases struct {
	blocked, dns, connecting, sending, waiting, receiving, duration int64
}

func phasesOf(t *HTTPTrace) phases {
	v := func(d int64, ok bool) int64 {
		if !ok {
			return -1
		}
		return d
	}
	return phases{
		blocked:    v(t.Blocked()),
		dns:        v(t.DNSLookup()),
		connecting: v(t.Connecting()),
		sending:    v(t.Sending()),
		waiting:    v(t.Waiting()),
		receiving:  v(t.Receiving()),
		duration:   v(t.Duration()),
	}
}

func TestHTTPTracePhases(t *testing.T) {
	// exchange is the part every case shares: connection at 1000, request
	// written at 1100, body from 5100 to 9100.
	exchange := func(tr HTTPTrace) *HTTPTrace {
		tr.GotConnNS, tr.WroteHeadersNS, tr.WroteRequestNS = 1000, 1050, 1100
		tr.FirstByteNS, tr.HeadersNS, tr.BodyStartNS, tr.BodyEndNS = 5000, 5050, 5100, 9100
		return &tr
	}
	tests := []struct {
		name  string
		trace *HTTPTrace
		want  phases
	}{
		{
			name:  "idle connection free at once",
			trace: exchange(HTTPTrace{GetConnNS: 990, Reused: true}),
			want:  phases{0, 0, 0, 100, 4000, 4000, 8100},
		},
		{
			name: "new connection with DNS: the phases tile GetConn..GotConn",
			// GetConn 100, DNS 110..310, connect 320..720, GotConn 1000.
			trace: exchange(HTTPTrace{GetConnNS: 100, DNSStartNS: 110, DNSDoneNS: 310, ConnectStartNS: 320, ConnectDoneNS: 720}),
			want:  phases{900 - 200 - 400, 200, 400, 100, 4000, 4000, 8100},
		},
		{
			name:  "https: connecting runs to the end of the handshake",
			trace: exchange(HTTPTrace{GetConnNS: 300, ConnectStartNS: 320, ConnectDoneNS: 520, TLSStartNS: 530, TLSDoneNS: 930}),
			want:  phases{700 - 610, 0, 610, 100, 4000, 4000, 8100},
		},
		{
			name: "dialed, but a kept-alive connection came free first",
			// The request waited 700 ns; its own dial does not count.
			trace: exchange(HTTPTrace{GetConnNS: 300, Reused: true, ConnectStartNS: 320}),
			want:  phases{700, 0, 0, 100, 4000, 4000, 8100},
		},
		{
			name: "new connection from another request's dial",
			// Its own dial never finished: the whole wait is blocked.
			trace: exchange(HTTPTrace{GetConnNS: 300, DNSStartNS: 310, ConnectStartNS: 320}),
			want:  phases{700, 0, 0, 100, 4000, 4000, 8100},
		},
		{
			name:  "one-read body",
			trace: &HTTPTrace{GetConnNS: 1, GotConnNS: 2, Reused: true, WroteRequestNS: 10, BodyStartNS: 50, BodyEndNS: 50},
			want:  phases{0, 0, 0, 8, 40, 0, 48},
		},
		{
			name:  "no body: no waiting, receiving or duration",
			trace: &HTTPTrace{GetConnNS: 1, GotConnNS: 2, Reused: true, WroteRequestNS: 10, FirstByteNS: 40, HeadersNS: 41},
			want:  phases{0, 0, 0, 8, -1, -1, -1},
		},
		{
			name:  "response before the request was written",
			trace: &HTTPTrace{GetConnNS: 1, GotConnNS: 2, WroteRequestNS: 60, BodyStartNS: 50, BodyEndNS: 70},
			want:  phases{1, 0, 0, 58, -1, 20, -1},
		},
		{
			name:  "never got a connection",
			trace: &HTTPTrace{GetConnNS: 5, DNSStartNS: 6},
			want:  phases{-1, -1, -1, -1, -1, -1, -1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := phasesOf(tt.trace)
			if got != tt.want {
				t.Errorf("phases\n got %+v\nwant %+v", got, tt.want)
			}
			if got.sending >= 0 && got.waiting >= 0 && got.receiving >= 0 &&
				got.sending+got.waiting+got.receiving != got.duration {
				t.Errorf("sending+waiting+receiving = %d, duration %d", got.sending+got.waiting+got.receiving, got.duration)
			}
		})
	}
}
