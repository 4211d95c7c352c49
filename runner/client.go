package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/internal/h1"
	"github.com/aiperf-go/aiperf/internal/secret"
	"github.com/aiperf-go/aiperf/record"
)

// maxErrorBody bounds how much of an error response body is kept.
const maxErrorBody = 4 << 10

// sender sends one request and measures it. It is safe for concurrent use.
type sender struct {
	// client sends through its transport; send calls the transport itself
	// (do, direct.go) and leaves redirects to the client.
	client *http.Client
	// urls are the request URLs, one per --url; a record goes to
	// urls[rec.URLIndex].
	urls    []string
	ep      *endpoint.Endpoint
	header  http.Header // static headers; cloned per request
	clock   *record.Clock
	timeout time.Duration
	// connDeadline: the transport is h1's (the run's own), which enforces
	// h1.WithDeadline with the connection's deadline; the timeout then
	// costs no timer and no cancellable context per request (10,000 open
	// streams: 7 MB). Any other transport gets a context deadline.
	connDeadline bool
	// trace collects each request's HTTP trace into rec.HTTPTrace
	// (traceHTTP: --show-trace-timing, --export-http-trace, or
	// --output-schema 1.4, whose summary always has the http_req_*
	// metrics).
	trace bool
	// poll follows the asynchronous job a submission starts (wait); nil
	// unless the endpoint type polls.
	poll *poller
	// aws signs requests for an AWS service and reads its event streams
	// (aws.go); nil for other runs.
	aws *awsSigner
	// base is what every request shares, built at the first request
	// (request.go).
	base requestBase
	// open counts the flights started and not yet finished (see parkOpen).
	open atomic.Int64
}

// newTransport returns an HTTP/1.1 transport for thousands of concurrent
// long-lived streams: it runs no goroutine of its own (a waiting stream
// costs its sender's goroutine and no read buffer), has no connection cap,
// keeps idle connections for reuse, and never asks for compression (it
// would batch SSE events and distort timing). Connections dialed for a
// traced request count their bytes (countingConn), and so are read through
// a held buffer.
func newTransport(maxConns int) *h1.Transport {
	dialer := newAsideDialer(&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}, maxDialsInFlight)
	return &h1.Transport{
		// Go sets TCP_NODELAY by default.
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.dial(ctx, network, addr)
			if err != nil || !countsConns(ctx) {
				return c, err
			}
			return &countingConn{Conn: c}, nil
		},
		MaxIdleConnsPerHost: max(maxConns, 256),
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 30 * time.Second,
		// Both buffers are pooled and held only while in use: a stream
		// waiting for its next event holds no read buffer. 4 KiB reads
		// take many SSE events at once; a 16 KiB write takes a 4,000-token
		// prompt.
		ReadBufferSize:  4 << 10,
		WriteBufferSize: 16 << 10,
	}
}

// staticHeaders builds the headers every request carries, in AIPerf's
// precedence: user headers, then the ones aiperf owns, the API key as the
// endpoint type carries it (ep.Authorize) last.
func staticHeaders(cfg *Config, ep *endpoint.Endpoint, version string) http.Header {
	h := http.Header{}
	for _, kv := range cfg.Headers {
		name, value, _ := strings.Cut(kv, ":")
		h.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	h.Set("User-Agent", "aiperf/"+version)
	h.Set("Content-Type", "application/json")
	if cfg.Streaming {
		h.Set("Accept", "text/event-stream")
	} else {
		h.Set("Accept", "application/json")
	}
	ep.Authorize(h, cfg.APIKey)
	return h
}

// send performs the request for rec with body payload, filling rec's
// timestamps, responses and error. It never returns a Go error: every
// failure becomes rec.Error.
//
// A request that fails on a reused keep-alive connection before any
// response arrives, because the server had closed that connection (some
// servers, llama.cpp's among them, close after a streamed response while
// announcing keep-alive), is sent again: the server never saw it. It goes
// again for as long as it fails that way on reused connections (several
// idle ones may be stale at once; the transport's look at each idle
// connection catches most of them before they are used); a failure on a
// new connection is final. The record measures the last attempt. A server
// that took the request and then dropped the connection without a byte of
// response would get it again: net/http, which watches every idle
// connection with a goroutine of its own, resends such a POST only if
// nothing was written.
//
// With s.trace, rec.HTTPTrace receives the request's HTTP trace (set even
// for a failed request, once the request reached the transport).
func (s *sender) send(ctx context.Context, rec *record.Record, payload []byte) {
	f := s.start(ctx, rec, payload)
	f.read(false)
	f.finish()
}

// failStatus records a response whose status is not 200 OK, with the start
// of its body as the message.
//
//go:noinline
func (s *sender) failStatus(rec *record.Record, code int, body io.Reader) {
	msg, _ := io.ReadAll(io.LimitReader(body, maxErrorBody))
	s.fail(rec, code, http.StatusText(code), strings.TrimSpace(string(msg)))
}

// readWhole reads and parses a whole (non-streamed) body, then polls for
// the result when the endpoint is polled. The body's end is stamped right
// after the read that brought its last bytes: waited, when that was the
// read of a parked head's wait (ib.ReadByWait; 0 for none), else now.
//
//go:noinline
func (s *sender) readWhole(ctx context.Context, rec *record.Record, body io.Reader, waited int64, ib idleBody) {
	data, err := io.ReadAll(body)
	end := readByWait(waited, ib)
	if end == 0 {
		end = s.clock.Now()
	}
	if err != nil {
		s.failErr(ctx, rec, err)
		return
	}
	r, ok, err := s.ep.Parse(data)
	rec.EndNS = end
	if err != nil {
		s.failParse(rec, data, err)
		return
	}
	if ok {
		r.PerfNS = end
		rec.Responses = append(rec.Responses, r)
	}
	if s.poll != nil {
		s.wait(ctx, s.poll, rec, s.urls[rec.URLIndex])
	}
}

// fail records an error on rec at the current time.
func (s *sender) fail(rec *record.Record, code int, typ, msg string) {
	rec.EndNS = s.clock.Now()
	rec.Error = &record.Error{Code: code, Type: typ, Message: msg}
}

// failParse records a response that could not be parsed, or that carried
// an error object from the server.
func (s *sender) failParse(rec *record.Record, data []byte, err error) {
	var se *endpoint.ServerError
	if errors.As(err, &se) {
		typ := se.Type
		if typ == "" {
			typ = "ServerError"
		}
		s.fail(rec, 0, typ, se.Message)
		return
	}
	s.fail(rec, 0, "ResponseParseError", fmt.Sprintf("invalid response %q: %v", truncate(data, 200), err))
}

// failErr classifies a transport or read error.
func (s *sender) failErr(ctx context.Context, rec *record.Record, err error) {
	typ := "ConnectionError"
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		typ = "TimeoutError"
		err = fmt.Errorf("request timed out after %v", s.timeout)
	case errors.Is(ctx.Err(), context.Canceled):
		typ = "CancelledError"
	case errors.Is(err, syscall.ECONNREFUSED):
		typ = "ConnectionRefusedError"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF):
		typ = "ConnectionResetError"
	}
	s.fail(rec, 0, typ, s.errorText(err))
}

// errorText is err's message for a record, with the credentials of the
// target URL redacted: net/http names the URL in its errors, masking only
// a password, so a query parameter such as ?api_key= would otherwise reach
// the records and the error summary.
func (s *sender) errorText(err error) string {
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		c := *ue
		c.URL = secret.URL(c.URL)
		err = &c
	}
	msg := err.Error()
	for _, u := range s.urls {
		msg = strings.ReplaceAll(msg, u, secret.URL(u))
	}
	return msg
}

// isEventStream reports whether contentType's media type is
// text/event-stream. One that does not name event-stream at all (in any
// case) cannot be, and is answered without mime.ParseMediaType, which
// builds a parameter map for every response (issue 19).
func isEventStream(contentType string) bool {
	if !containsFold(contentType, "event-stream") {
		return false
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}

// containsFold reports whether s contains substr, ASCII letters compared
// without case (substr is lower case).
func containsFold(s, substr string) bool {
	for i := 0; i+len(substr) <= len(s); i++ {
		j := 0
		for ; j < len(substr); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != substr[j] {
				break
			}
		}
		if j == len(substr) {
			return true
		}
	}
	return false
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

// staleConn reports whether err is how a request fails on a keep-alive
// connection the server closed before reading it.
func staleConn(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		strings.Contains(err.Error(), "server closed idle connection")
}
