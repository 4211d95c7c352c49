package runner

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// errWant is how a request failure is written in each artifact layout
// (docs/metrics.md, "Artifact layouts"): 1.0 keeps AIPerf 0.8's types,
// 1.4 maps them to what AIPerf 0.13 writes (aiohttp's exceptions and its
// ErrorDetails: type, message, cause, cause_chain, code).
type errWant struct {
	// The 1.0 error: a substring of its type, and its code (an HTTP
	// status; 0: null).
	v10    string
	code10 int
	// The 1.4 error: its type (a substring: an HTTP reason is followed by
	// nothing else, a payload's type is the server's), its code (0: left
	// out), a substring of its message, its cause ("": left out) and its
	// cause_chain (selfChain: [its own type]; else chain, nil: left out).
	typ, msg, cause string
	code            int
	chain           []string
	selfChain       bool
}

// The aiohttp exception a chunked body cut short raises (0.13 wraps it).
const transferEncodingCause = "<TransferEncodingError: 400, message='Not enough data to satisfy transfer length header.'>"

var payloadChain = []string{"ClientPayloadError", "TransferEncodingError"}

// httpErr: an HTTP error status keeps its code and reason in both layouts.
func httpErr(code int, reason string) errWant {
	return errWant{v10: reason, code10: code, typ: reason, code: code}
}

// otherErr: a failure 0.13 would raise as an exception of the same name:
// its type, with itself as the cause chain.
func otherErr(typ string) errWant { return errWant{v10: typ, typ: typ, selfChain: true} }

var (
	// A stream reset while it was read: aiohttp's ClientPayloadError
	// naming the reset.
	resetStreamErr = errWant{v10: "ConnectionResetError", typ: "ClientPayloadError",
		msg:   "Response payload is not completed: " + transferEncodingCause + ". ConnectionResetError(104, 'Connection reset by peer')",
		cause: transferEncodingCause, chain: payloadChain}
	// A stream that ends in the middle of an event.
	truncatedStreamErr = errWant{v10: "IncompleteStream", typ: "ClientPayloadError",
		msg:   `ClientPayloadError("Response payload is not completed: ` + transferEncodingCause + `")`,
		cause: transferEncodingCause, chain: payloadChain}
	// A reset before any response: aiohttp's ClientOSError, caused by
	// the socket's ConnectionResetError (as a 0.13 run writes it).
	resetErr = errWant{v10: "ConnectionResetError", typ: "ClientOSError",
		msg:   "ClientOSError(104, 'Connection reset by peer')",
		cause: "ConnectionResetError(104, 'Connection reset by peer')", chain: []string{"ClientOSError", "ConnectionResetError"}}
	// An `event: error` in a stream: 0.13's SSEResponseError, code 502.
	eventErr = errWant{v10: "StreamError", typ: "SSEResponseError", code: 502,
		msg: "SSEResponseError('Error occurred in SSE response: ", chain: []string{"SSEResponseError"}}
)

// check checks the error of one record of a run written in schema ("" is
// the default, 1.4).
func (w errWant) check(t *testing.T, schema string, r jsonRecord) {
	t.Helper()
	e := r.Error
	if e == nil {
		t.Fatalf("record %s has no error", r.Metadata.XRequestID)
	}
	if schema == "1.0" {
		// 0.8's {code|null, type, message}.
		if !strings.Contains(e.Type, w.v10) || (e.Code == nil) != (w.code10 == 0) || (e.Code != nil && *e.Code != w.code10) ||
			e.Cause != "" || e.CauseChain != nil {
			t.Fatalf("1.0 record error %+v (code %v), want type %q, code %d", e, derefInt(e.Code), w.v10, w.code10)
		}
		return
	}
	chain := w.chain
	if w.selfChain {
		chain = []string{e.Type}
	}
	if !strings.Contains(e.Type, w.typ) || (e.Code == nil) != (w.code == 0) || (e.Code != nil && *e.Code != w.code) ||
		!strings.Contains(e.Message, w.msg) || e.Cause != w.cause || !slices.Equal(e.CauseChain, chain) {
		t.Fatalf("1.4 record error %+v (code %v), want type %q, code %d, message with %q, cause %q, cause_chain %q",
			e, derefInt(e.Code), w.typ, w.code, w.msg, w.cause, chain)
	}
}

// checkFailedRun runs 4 requests, 2 at a time, of endpoint type typ
// (streaming or not) against handler, or the mock with mock's faults when
// handler is nil, written in schema ("": the default). Every request must
// fail: the run returns ErrAllFailed, and each of its 4 records holds the
// error want.
func checkFailedRun(t *testing.T, typ string, streaming bool, mock mockserver.Config, handler http.HandlerFunc, schema string, want errWant) {
	t.Helper()
	url := ""
	if handler != nil {
		hs := httptest.NewServer(handler)
		t.Cleanup(hs.Close)
		url = hs.URL
	} else {
		url = mocktest.Start(t, mock).URL()
	}
	cfg := testConfig(t, url)
	cfg.EndpointType, cfg.Streaming = typ, streaming
	cfg.Concurrency, cfg.RequestCount = 2, 4
	if schema != "" {
		cfg.OutputSchema = schema
	}
	res, err := Run(context.Background(), cfg, Options{})
	if !errors.Is(err, ErrAllFailed) {
		t.Fatalf("err = %v, want ErrAllFailed", err)
	}
	if res.Summary.Valid != 0 || len(res.Summary.Errors) == 0 {
		t.Fatalf("valid %d, errors %+v", res.Summary.Valid, res.Summary.Errors)
	}
	recs := readRecords(t, cfg.ArtifactDir)
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	for _, r := range recs {
		want.check(t, schema, r)
	}
}

// derefInt is *p, or nil.
func derefInt(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
