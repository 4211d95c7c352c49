package h1

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strconv"
)

// defaultUserAgent is what net/http sends when a request sets no
// User-Agent.
const defaultUserAgent = "Go-http-client/1.1"

// maxFastHeaders bounds the header keys writeRequest sorts on the stack;
// a request with more takes net/http's writer.
const maxFastHeaders = 32

// writeRequest writes req to w byte for byte as req.Write does (request
// line, Host, User-Agent, Content-Length, the other headers sorted by key,
// the body), calling the same WroteHeaders and WroteRequest hooks and
// closing the body, for the common request: a body of known length and
// headers that net/http would write unchanged. It reports false, having
// written nothing, for any other request (no body, chunked, Close,
// trailers, header values net/http would clean up, invalid names, a
// WroteHeaderField hook), which the caller then writes with req.Write.
// Request.Write formats with fmt, sorts through a pool and allocates per
// header; this costs ~2 µs less per request (issue 19).
func writeRequest(w *bufio.Writer, req *http.Request, trace Tracer) (bool, error) {
	host, ruri, ok := fastRequestTarget(req)
	if !ok || wantsHeaderFields(trace) || req.Body == nil || req.Body == http.NoBody ||
		req.ContentLength <= 0 || len(req.TransferEncoding) > 0 || req.Trailer != nil || req.Close ||
		req.Method == "" || req.Method == http.MethodConnect || !isToken(req.Method) || len(req.Header) > maxFastHeaders {
		return false, nil
	}
	userAgent := defaultUserAgent
	if vs, has := req.Header["User-Agent"]; has {
		userAgent = ""
		if len(vs) > 0 {
			userAgent = vs[0]
		}
	}
	if !cleanValue(userAgent) {
		return false, nil
	}
	var keyArr [maxFastHeaders]string
	keys := keyArr[:0]
	for k, vs := range req.Header {
		switch k {
		case "Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer":
			continue
		}
		if !isToken(k) {
			return false, nil // net/http drops it
		}
		for _, v := range vs {
			if !cleanValue(v) {
				return false, nil // net/http rewrites it
			}
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)

	err := writeFast(w, req, host, ruri, userAgent, keys, trace)
	if trace != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{Err: err})
	}
	return true, err
}

// writeFast writes the request that writeRequest checked, and closes its
// body.
func writeFast(w *bufio.Writer, req *http.Request, host, ruri, userAgent string, keys []string, trace Tracer) error {
	w.WriteString(req.Method)
	w.WriteByte(' ')
	w.WriteString(ruri)
	w.WriteString(" HTTP/1.1\r\nHost: ")
	w.WriteString(host)
	w.WriteString("\r\n")
	if userAgent != "" {
		w.WriteString("User-Agent: ")
		w.WriteString(userAgent)
		w.WriteString("\r\n")
	}
	w.WriteString("Content-Length: ")
	w.Write(strconv.AppendInt(w.AvailableBuffer(), req.ContentLength, 10))
	w.WriteString("\r\n")
	for _, k := range keys {
		for _, v := range req.Header[k] {
			w.WriteString(k)
			w.WriteString(": ")
			w.WriteString(v)
			w.WriteString("\r\n")
		}
	}
	_, err := w.WriteString("\r\n")
	if err != nil {
		req.Body.Close()
		return err
	}
	if trace != nil {
		trace.WroteHeaders()
	}
	// As net/http: at most ContentLength bytes are sent, the rest read
	// and counted only to report the mismatch.
	n, err := copyBody(w, req.Body, req.ContentLength)
	if err == nil {
		var extra int64
		extra, err = io.Copy(io.Discard, req.Body)
		n += extra
	}
	if cerr := req.Body.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != req.ContentLength {
		err = fmt.Errorf("http: ContentLength=%d with Body length %d", req.ContentLength, n)
	}
	return err
}

// copyBody copies at most limit bytes of body into w, as io.Copy of an
// io.LimitReader does, reading straight into w's buffer (no allocation).
// It returns the bytes copied and the first error other than io.EOF.
func copyBody(w *bufio.Writer, body io.Reader, limit int64) (int64, error) {
	var n int64
	for n < limit {
		if w.Available() == 0 {
			if err := w.Flush(); err != nil {
				return n, err
			}
		}
		buf := w.AvailableBuffer()[:min(int64(w.Available()), limit-n)]
		k, err := body.Read(buf)
		if k > 0 {
			w.Write(buf[:k]) // buf is w's own free space: this only advances it
			n += int64(k)
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// fastRequestTarget returns the Host header and request URI net/http would
// write for req, and whether they need none of its conversions: a plain
// ASCII host (no IDNA, no IPv6 zone) and a request URI without control
// bytes.
func fastRequestTarget(req *http.Request) (host, ruri string, ok bool) {
	if req.URL == nil || req.URL.Opaque != "" {
		return "", "", false
	}
	host = req.Host
	if host == "" {
		host = req.URL.Host
	}
	if host == "" {
		return "", "", false
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '.' || c == '-' || c == ':' || c == '[' || c == ']' || c == '_') {
			return "", "", false
		}
	}
	ruri = req.URL.RequestURI()
	for i := 0; i < len(ruri); i++ {
		if c := ruri[i]; c < ' ' || c == 0x7f {
			return "", "", false
		}
	}
	return host, ruri, true
}

// cleanValue reports whether net/http writes header value v as it is: no
// line breaks to turn into spaces, no leading or trailing space or tab to
// trim.
func cleanValue(v string) bool {
	if v == "" {
		return true
	}
	if c := v[0]; c == ' ' || c == '\t' {
		return false
	}
	if c := v[len(v)-1]; c == ' ' || c == '\t' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '\r' || c == '\n' {
			return false
		}
	}
	return true
}

// isToken reports whether s is a non-empty RFC 7230 token (a valid header
// field name or method).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			continue
		}
		switch c {
		case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
			continue
		}
		return false
	}
	return true
}
