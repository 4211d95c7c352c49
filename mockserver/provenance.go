package mockserver

import "net/http"

// Software is the product name the mock gives in its Server header,
// "aiperf-mock/VERSION", so that a client recording what it measured can
// tell the mock from a real server.
const Software = "aiperf-mock"

// provenance answers the questions a client asks to learn which server it
// measures: the Server header on every response and GET /version.
type provenance struct {
	header  []string // the Server header's value, shared read-only by every response
	version []byte   // the /version body
}

// newProvenance returns the answers of a mock at version (validated: no
// characters that need escaping).
func newProvenance(version string) *provenance {
	return &provenance{
		header:  []string{Software + "/" + version},
		version: []byte(`{"version":"` + version + `"}`),
	}
}

// wrap returns h with the Server header set on each of its responses.
// Assigning the shared slice costs no allocation per request.
func (p *provenance) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Server"] = p.header
		h.ServeHTTP(w, r)
	})
}

// serveVersion answers GET /version as vLLM does: {"version": "…"}.
func (p *provenance) serveVersion(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, p.version)
}
