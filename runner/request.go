package runner

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"

	"github.com/aiperf-go/aiperf/record"
)

// requestBase is what every request of a sender shares, built once, at its
// first request: each URL parsed into a request template, and the static
// headers. Building them per request (url.Parse, Header.Clone, two
// Header.Set that canonicalize their keys) cost ~1 µs and 8 allocations
// of every request (issue 19).
type requestBase struct {
	once sync.Once
	// tmpls[i] is a request to urls[i] without context, headers or body;
	// nil where the URL does not parse (newRequest then returns
	// net/http's error).
	tmpls []*http.Request
	// header is sender.header with every value slice's capacity cut to its
	// length, so that a request's header map can share them: an Add on a
	// request's header copies rather than writing into the shared array.
	header http.Header
}

// The canonical forms of the per-request header names, as Header.Set
// writes them.
const (
	headerRequestID     = "X-Request-Id"
	headerCorrelationID = "X-Correlation-Id"
)

// newRequest returns the POST of payload to target for rec, with ctx, the
// static headers and rec's X-Request-ID and X-Correlation-ID: what
// http.NewRequestWithContext and Header.Clone/Set would give, from the
// sender's templates. target is s.urls[rec.URLIndex] unless an AWS target
// rewrote it, which takes the general path.
func (s *sender) newRequest(ctx context.Context, rec *record.Record, target string, payload []byte) (*http.Request, error) {
	s.base.once.Do(s.buildBase)
	var tmpl *http.Request
	if rec.URLIndex < len(s.base.tmpls) && target == s.urls[rec.URLIndex] {
		tmpl = s.base.tmpls[rec.URLIndex]
	}
	var req *http.Request
	if tmpl == nil {
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		req = r
	} else {
		req = tmpl.WithContext(ctx) // a shallow copy; the URL is shared and never modified
		req.ContentLength = int64(len(payload))
		if len(payload) == 0 {
			req.Body = http.NoBody
			req.GetBody = func() (io.ReadCloser, error) { return http.NoBody, nil }
		} else {
			req.Body = io.NopCloser(bytes.NewReader(payload))
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(payload)), nil }
		}
	}
	h := make(http.Header, len(s.base.header)+2)
	for k, v := range s.base.header {
		h[k] = v
	}
	h[headerRequestID] = []string{rec.XRequestID}
	h[headerCorrelationID] = []string{rec.XCorrelationID}
	req.Header = h
	return req, nil
}

// buildBase fills s.base from s.urls and s.header.
func (s *sender) buildBase() {
	s.base.header = s.header.Clone() // Clone cuts each value slice's capacity
	s.base.tmpls = make([]*http.Request, len(s.urls))
	for i, u := range s.urls {
		if req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, u, nil); err == nil {
			s.base.tmpls[i] = req
		}
	}
}
