package mockserver

import (
	"bytes"
	"io"
	"net/http"
)

// admitRaw is admit for the handlers of APIs whose fields the generic
// request does not decode (images, videos, rankings, Solido): it also
// returns the request body as received, for the handler's own decoding.
func (s *Server) admitRaw(w http.ResponseWriter, r *http.Request, ep endpoint) (a admitted, body []byte, ok bool) {
	var buf bytes.Buffer
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(r.Body, &buf), r.Body}
	a, ok = s.admit(w, r, ep)
	return a, buf.Bytes(), ok
}
