// Package mockserver is an OpenAI-compatible inference server with
// scripted latency, exact token counts and fault injection, for demos,
// tests and benchmarks of the aiperf client.
//
// It serves POST /v1/chat/completions, /v1/completions (streaming or not)
// and /v1/embeddings, GET /v1/models, /health and /metrics. Generated text
// is a cycle of common English words, each exactly one o200k_base token, so
// a client can count output tokens exactly.
package mockserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/tokenizer"
)

// maxEmbeddingDims bounds embedding vector lengths.
const maxEmbeddingDims = 4096

// maxBodyBytes bounds request bodies.
const maxBodyBytes = 64 << 20

// ErrStarted is returned by Start on a server already started.
var ErrStarted = errors.New("mock server already started")

// Server is a mock inference server. Its methods are safe for concurrent
// use. Create it with New; serve it with Start, or mount Handler on a
// server of your own (httptest). Close releases it.
type Server struct {
	cfg     Config
	counter tokenizer.Tokenizer // o200k_base; nil when estimating
	handler http.Handler
	seq     atomic.Uint64
	m       metrics
	tl      timelines

	mu       sync.Mutex
	closed   bool
	started  bool
	ln       net.Listener
	srv      *http.Server
	done     chan struct{} // closed by Close
	active   sync.WaitGroup
	serveErr error
	wg       sync.WaitGroup // serving goroutines
}

// New returns a server for cfg, with zero fields set to their defaults,
// or an error if cfg is invalid. It does not listen; see Start.
func New(cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, done: make(chan struct{})}
	if !cfg.EstimatePromptTokens {
		if s.counter, err = tokenizer.Builtin(); err != nil {
			return nil, fmt.Errorf("new mock server: %w", err)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		s.serveGenerate(w, r, epChat, &chatShape)
	})
	mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) {
		s.serveGenerate(w, r, epCompletions, &completionShape)
	})
	mux.HandleFunc("POST /v1/embeddings", s.serveEmbeddings)
	mux.HandleFunc("GET /v1/models", serveModels)
	mux.HandleFunc("GET /health", serveHealth)
	mux.HandleFunc("GET /metrics", s.m.serveHTTP)
	mux.HandleFunc("GET /debug/timeline/{id}", s.serveTimeline)
	s.handler = mux
	return s, nil
}

// Handler returns the server's HTTP handler. After Close it answers
// inference requests with 503.
func (s *Server) Handler() http.Handler { return s.handler }

// Start listens on the configured address and returns once listening (or
// with the listen error); it serves in the background until ctx is done or
// Close is called. It can be called once.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.closed {
		return ErrStarted
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	s.started = true
	s.ln = ln
	s.srv = &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       5 * time.Minute,
		ErrorLog:          log.New(io.Discard, "", 0), // no per-connection logging
	}
	s.wg.Go(func() {
		err := s.srv.Serve(ln)
		if !errors.Is(err, http.ErrServerClosed) {
			s.mu.Lock()
			s.serveErr = err
			s.mu.Unlock()
		}
	})
	s.wg.Go(func() {
		select {
		case <-ctx.Done():
		case <-s.done:
		}
		_ = s.srv.Close()
	})
	return nil
}

// Addr returns the address the server listens on (host:port, with the
// actual port when the configured one was 0), or the configured address
// before Start.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln != nil {
		return s.ln.Addr().String()
	}
	return s.cfg.Addr
}

// URL returns "http://" + Addr().
func (s *Server) URL() string { return "http://" + s.Addr() }

// Close stops serving, aborts requests in progress (their sleeps end at
// once) and waits for the server's goroutines and handlers to return. It
// returns the error that ended serving early, if any, and is idempotent.
func (s *Server) Close() error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.done)
	}
	s.mu.Unlock()
	s.wg.Wait()
	s.active.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.serveErr
}

// MaxInFlight returns the largest number of inference requests that were
// being served at once since New.
func (s *Server) MaxInFlight() int { return int(s.m.maxInFlight.Load()) }

// Timeline returns the timeline of the latest request that carried the
// X-Request-ID requestID; ok is false if there is none or RecordTimelines
// is off. The returned value is a copy.
func (s *Server) Timeline(requestID string) (t Timeline, ok bool) {
	return s.tl.get(requestID)
}

// begin registers a handler with Close; false means the server is closed.
func (s *Server) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.active.Add(1)
	return true
}

// Timelines returns every recorded timeline by X-Request-ID (empty unless
// RecordTimelines is set).
func (s *Server) Timelines() map[string]Timeline { return s.tl.all() }

// record starts the timeline of r if timelines are recorded and r has an
// X-Request-ID; otherwise it returns nil, which records nothing.
func (s *Server) record(r *http.Request, arrival time.Time) *recorder {
	if !s.cfg.RecordTimelines {
		return nil
	}
	id := r.Header.Get("X-Request-ID")
	if id == "" {
		return nil
	}
	return s.tl.start(id, r.URL.Path, arrival)
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// readBody reads r's body into a pooled buffer, which the caller returns
// with bufPool.Put once done with the bytes.
func readBody(w http.ResponseWriter, r *http.Request) (*bytes.Buffer, error) {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	if r.ContentLength > 0 && r.ContentLength <= maxBodyBytes {
		buf.Grow(int(r.ContentLength))
	}
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxBodyBytes)); err != nil {
		bufPool.Put(buf)
		return nil, fmt.Errorf("read body: %w", err)
	}
	return buf, nil
}

// countPrompt returns the prompt tokens of texts.
func (s *Server) countPrompt(texts []string) int {
	if len(texts) == 0 {
		return 0
	}
	text := promptText(texts)
	if s.counter == nil {
		return len(text) / 4
	}
	return s.counter.Count(text)
}

var (
	jsonType    = []string{"application/json"}
	sseType     = []string{"text/event-stream"}
	noCache     = []string{"no-cache"}
	healthBody  = []byte(`{"status":"ok"}`)
	healthBodyN = []string{"15"}
)

// writeJSON writes a complete JSON response with a Content-Length.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = jsonType
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeError writes an OpenAI-style JSON error.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, appendError(nil, status, typ, msg))
}

func serveHealth(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h["Content-Type"] = jsonType
	h["Content-Length"] = healthBodyN
	_, _ = w.Write(healthBody)
}

func serveModels(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, []byte(`{"object":"list","data":[{"id":"mock-model","object":"model","created":0,"owned_by":"aiperf-mock"}]}`))
}

// admitted is an inference request accepted by admit.
type admitted struct {
	arrival time.Time
	seq     uint64
	rec     *recorder
	req     *request
	done    func()
}

// admit starts serving an inference request for endpoint ep: it takes the
// arrival time first, counts the request, starts its timeline and decodes
// its body. When ok is false it has already answered (server closed, bad
// body); otherwise the caller must call done when the response is finished.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, ep endpoint) (a admitted, ok bool) {
	a.arrival = time.Now()
	if !s.begin() {
		writeError(w, http.StatusServiceUnavailable, "server_error", "server closed")
		return a, false
	}
	s.m.enter(ep)
	a.done = func() {
		s.m.leave()
		s.active.Done()
	}
	a.seq = s.seq.Add(1)
	a.rec = s.record(r, a.arrival)
	buf, err := readBody(w, r)
	if err == nil {
		a.rec.setRequest(r.Header.Get("X-Correlation-ID"), buf.Bytes())
		a.req, err = decodeRequest(buf.Bytes())
		bufPool.Put(buf)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		a.done()
		return a, false
	}
	return a, true
}
