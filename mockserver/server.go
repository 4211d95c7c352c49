// Package mockserver is an OpenAI-compatible inference server with
// scripted latency, exact token counts and fault injection, for demos,
// tests and benchmarks of the aiperf client.
//
// It serves POST /v1/chat/completions, /v1/completions (streaming or not)
// and /v1/embeddings, GET /v1/models, /version, /health and /metrics.
// Generated text is a cycle of common English words, each exactly one
// o200k_base token, so a client can count output tokens exactly.
//
// /metrics carries the mock's own mock_* metrics and vLLM's vllm:* metrics
// of a simulated engine driven by the actual load (running and waiting
// requests, KV-cache usage, token counters, latency histograms). With
// Config.FakeGPUs set, GET /dcgm/metrics (and, with Config.DCGMAddr, GET
// /metrics on a listener of its own) serves dcgm-exporter's metrics for
// simulated GPUs whose power and utilisation follow the load. Every
// response carries the header "Server: aiperf-mock/VERSION".
package mockserver

import (
	"bytes"
	"context"
	"crypto/tls"
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
	engine  *engine
	load    *loadClock // nil without fake GPUs
	gpus    *fakeGPUs  // nil without fake GPUs
	prov    *provenance

	mu       sync.Mutex
	closed   bool
	started  bool
	ln       net.Listener
	srv      *http.Server
	dcgmLn   net.Listener // nil without Config.DCGMAddr
	dcgmSrv  *http.Server
	done     chan struct{} // closed by Close
	active   sync.WaitGroup
	serveErr error
	wg       sync.WaitGroup // serving goroutines
}

// route is a route that a file of the package adds in its init function
// (an endpoint type's own), served beside the built-in ones.
type route struct {
	pattern string // http.ServeMux pattern, e.g. "POST /v1/messages"
	handler func(s *Server) http.HandlerFunc
}

// routes are the routes added by init functions.
var routes []route

// New returns a server for cfg, with zero fields set to their defaults,
// or an error if cfg is invalid. It does not listen; see Start.
func New(cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, done: make(chan struct{}), engine: newEngine(&cfg), prov: newProvenance(cfg.Version)}
	if cfg.FakeGPUs > 0 {
		s.load = newLoadClock()
		s.gpus = newFakeGPUs(cfg.FakeGPUs, cfg.Seed, s.load)
	}
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
	mux.HandleFunc("GET /version", s.prov.serveVersion)
	mux.HandleFunc("GET /metrics", s.serveMetrics)
	if s.gpus != nil {
		mux.HandleFunc("GET /dcgm/metrics", s.gpus.serveHTTP)
	}
	mux.HandleFunc("GET /debug/timeline/{id}", s.serveTimeline)
	for _, rt := range routes {
		mux.HandleFunc(rt.pattern, rt.handler(s))
	}
	s.handler = s.prov.wrap(mux)
	return s, nil
}

// Handler returns the server's HTTP handler. After Close it answers
// inference requests with 503.
func (s *Server) Handler() http.Handler { return s.handler }

// Start listens on the configured address (and on Config.DCGMAddr when
// set) and returns once listening (or with the listen error); it serves in
// the background until ctx is done or Close is called. It can be called
// once.
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
	if s.cfg.DCGMAddr != "" {
		if s.dcgmLn, err = lc.Listen(ctx, "tcp", s.cfg.DCGMAddr); err != nil {
			_ = ln.Close()
			return fmt.Errorf("listen dcgm: %w", err)
		}
	}
	if s.cfg.TLS != nil {
		ln = tls.NewListener(ln, s.cfg.TLS)
	}
	s.started = true
	s.ln = ln
	s.srv = newHTTPServer(s.handler)
	s.serve(s.srv, ln)
	if s.dcgmLn != nil {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /metrics", s.gpus.serveHTTP)
		s.dcgmSrv = newHTTPServer(mux)
		s.serve(s.dcgmSrv, s.dcgmLn)
	}
	s.wg.Go(func() {
		select {
		case <-ctx.Done():
		case <-s.done:
		}
		_ = s.srv.Close()
		if s.dcgmSrv != nil {
			_ = s.dcgmSrv.Close()
		}
	})
	return nil
}

// newHTTPServer returns the http.Server settings of the mock's listeners.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       5 * time.Minute,
		ErrorLog:          log.New(io.Discard, "", 0), // no per-connection logging
	}
}

// serve serves srv on ln in a goroutine of s.wg, keeping the first error
// that ends serving early.
func (s *Server) serve(srv *http.Server, ln net.Listener) {
	s.wg.Go(func() {
		err := srv.Serve(ln)
		if !errors.Is(err, http.ErrServerClosed) {
			s.mu.Lock()
			if s.serveErr == nil {
				s.serveErr = err
			}
			s.mu.Unlock()
		}
	})
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

// URL returns "http://" + Addr(), or "https://" + Addr() with Config.TLS.
func (s *Server) URL() string {
	if s.cfg.TLS != nil {
		return "https://" + s.Addr()
	}
	return "http://" + s.Addr()
}

// DCGMAddr returns the address of the fake GPUs' own listener (host:port,
// with the actual port once started), or "" when Config.DCGMAddr is
// unset. Its metrics are at "http://" + DCGMAddr() + "/metrics".
func (s *Server) DCGMAddr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dcgmLn != nil {
		return s.dcgmLn.Addr().String()
	}
	return s.cfg.DCGMAddr
}

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
	arrival := a.arrival
	s.load.enter(arrival)
	a.done = func() {
		s.load.leave(arrival)
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
