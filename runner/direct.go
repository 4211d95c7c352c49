package runner

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/aiperf-go/aiperf/internal/h1"
)

// do sends req and returns its response as s.client.Do would, calling the
// client's transport itself: http.Client copies every request's headers
// for the redirects it might follow (~0.4 KB of heap per request waiting
// for its head, 4 MB at 10,000 streams) and adds four frames (~1.2 KB) to
// the stack of every stream waiting for its head (issue 19).
//
// What the client does for the runner's requests is done here the same
// way: a transport error is wrapped in a *url.Error naming the method and
// the URL (a bad TLS record header that reads "HTTP/" becomes
// http.ErrSchemeMismatch), and a response without a body gets an empty
// one. Everything else goes through the client: a URL with credentials
// (it sends them as Basic authorization), a client with a cookie jar, a
// timeout or a redirect check, and any 3xx response, which the client
// receives as the answer to its first attempt (replayTransport) and
// follows or returns by its own rules.
func (s *sender) do(req *http.Request) (*http.Response, error) {
	var x h1.Exchange
	split, resp, err := s.doStart(req, &x)
	if !split {
		return resp, err
	}
	resp, err = x.Head()
	return s.doFinish(req, resp, err)
}

// doStart begins do: on the direct path to an h1 transport it writes req,
// sets x to the exchange whose head doFinish takes after x.Head(), and
// reports split; otherwise it returns do's result.
func (s *sender) doStart(req *http.Request, x *h1.Exchange) (split bool, resp *http.Response, err error) {
	c := s.client
	if req.URL.User != nil || c.Jar != nil || c.Timeout != 0 || c.CheckRedirect != nil || c.Transport == nil {
		resp, err := c.Do(req)
		return false, resp, err
	}
	if t, ok := c.Transport.(*h1.Transport); ok {
		if err := t.Send(x, req); err != nil {
			return false, nil, transportError(req, err)
		}
		return true, nil, nil
	}
	resp, err = c.Transport.RoundTrip(req)
	resp, err = s.doFinish(req, resp, err)
	return false, resp, err
}

// doFinish ends do once the transport answered req with resp or err.
func (s *sender) doFinish(req *http.Request, resp *http.Response, err error) (*http.Response, error) {
	c := s.client
	if err != nil {
		return nil, transportError(req, err)
	}
	if resp == nil {
		return nil, transportError(req, fmt.Errorf("http: RoundTripper implementation (%T) returned a nil *Response with a nil error", c.Transport))
	}
	if resp.Body == nil {
		if resp.ContentLength > 0 {
			return nil, transportError(req, fmt.Errorf("http: RoundTripper implementation (%T) returned a *Response with content length %d but a nil Body", c.Transport, resp.ContentLength))
		}
		resp.Body = http.NoBody
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return redirect(c, req, resp)
	}
	return resp, nil
}

// redirect hands a 3xx response to a copy of c, as the answer to its first
// attempt at req, and returns what the client makes of it.
func redirect(c *http.Client, req *http.Request, resp *http.Response) (*http.Response, error) {
	cc := *c
	cc.Transport = &replayTransport{first: resp, next: c.Transport}
	return cc.Do(req)
}

// transportError wraps err as http.Client.Do wraps a transport's error.
func transportError(req *http.Request, err error) error {
	if tlsErr, ok := err.(tls.RecordHeaderError); ok && string(tlsErr.RecordHeader[:]) == "HTTP/" {
		err = http.ErrSchemeMismatch
	}
	op := "Get"
	if req.Method != "" {
		op = req.Method[:1] + strings.ToLower(req.Method[1:])
	}
	return &url.Error{Op: op, URL: req.URL.String(), Err: err}
}

// replayTransport answers its first round trip with a response already
// received, and sends the others through next.
type replayTransport struct {
	first *http.Response
	next  http.RoundTripper
}

// RoundTrip returns the first response once, then next's.
func (t *replayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if resp := t.first; resp != nil {
		t.first = nil
		if req.Body != nil && req.Body != http.NoBody {
			req.Body.Close() // a RoundTripper closes the body it is given
		}
		return resp, nil
	}
	return t.next.RoundTrip(req)
}
