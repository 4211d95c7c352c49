package runner

import (
	"context"
	"net/http"
	"sync"

	"github.com/aiperf-go/aiperf/internal/h1"
)

// firstTokenKey carries, in a request's context, a function called when
// the first token of a streamed response arrives (the prefill limit is
// released then).
type firstTokenKey struct{}

// firstToken calls the first-token function of ctx, if any.
func firstToken(ctx context.Context) {
	if fn, ok := ctx.Value(firstTokenKey{}).(func()); ok {
		fn()
	}
}

// sessionKey carries the session a request belongs to, for
// --connection-reuse-strategy sticky-user-sessions.
type sessionKey struct{}

// hookTransport wraps the run's transport to route each session's requests
// to a connection of its own (sticky-user-sessions).
type hookTransport struct {
	base   http.RoundTripper
	sticky bool

	mu       sync.Mutex
	sessions map[*session]*h1.Transport
}

// RoundTrip implements http.RoundTripper.
func (t *hookTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rt := t.base
	if t.sticky {
		if s, ok := req.Context().Value(sessionKey{}).(*session); ok {
			rt = t.forSession(s)
		}
	}
	return rt.RoundTrip(req)
}

// forSession returns the session's own transport: one connection, kept for
// the session's turns.
func (t *hookTransport) forSession(s *session) *h1.Transport {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sessions == nil {
		t.sessions = map[*session]*h1.Transport{}
	}
	tr, ok := t.sessions[s]
	if !ok {
		// A session's turns are sequential: it never needs more than one
		// connection, and keeps that one between turns.
		tr = newTransport(1)
		tr.MaxIdleConnsPerHost = 1
		t.sessions[s] = tr
	}
	return tr
}

// endSession closes the connection of a finished session.
func (t *hookTransport) endSession(s *session) {
	if t == nil || !t.sticky {
		return
	}
	t.mu.Lock()
	tr := t.sessions[s]
	delete(t.sessions, s)
	t.mu.Unlock()
	if tr != nil {
		tr.CloseIdleConnections()
	}
}

// closeAll closes every session's connections.
func (t *hookTransport) closeAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for s, tr := range t.sessions {
		tr.CloseIdleConnections()
		delete(t.sessions, s)
	}
}

// withSession returns ctx carrying s for sticky routing.
func withSession(ctx context.Context, s *session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}
