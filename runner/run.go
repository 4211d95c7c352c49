package runner

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gocloud.dev/blob"

	"github.com/google/uuid"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
	"github.com/aiperf-go/aiperf/tokenizer"
	"github.com/aiperf-go/aiperf/verdict"
)

// Errors a run can end with after it started sending.
var (
	// ErrAllFailed means every profiling request failed.
	ErrAllFailed = errors.New("every request failed")
	// ErrInterrupted means the run was cancelled (ctx) before it finished;
	// its partial results were stored.
	ErrInterrupted = errors.New("run interrupted")
)

// errGraceExpired cancels requests still in flight after the grace period;
// they are left out of the results, as AIPerf does.
var errGraceExpired = errors.New("grace period expired")

// Options are the process-level inputs of a run that are not configuration.
type Options struct {
	Version, Commit string
	// Stdout receives the final console table; Stderr the progress display.
	Stdout, Stderr io.Writer
	// Terminal reports whether Stderr is a terminal (selects the default UI).
	Terminal bool
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// Transport overrides the HTTP transport (tests inject faults with it).
	Transport http.RoundTripper
	// Stores opens --artifact-dir URLs; nil means gocloud's default mux
	// (the drivers the binary blank-imports). Plain paths need none.
	Stores *blob.URLMux
	// Hub holds the Hugging Face environment for --tokenizer (HF_HOME,
	// HF_TOKEN, HF_HUB_OFFLINE, HF_ENDPOINT) and public datasets; Revision
	// and TrustRemoteCode come from the Config.
	Hub tokenizer.LoadOptions
	// CacheDir holds downloaded public datasets; "" means no cache (a
	// download each run).
	CacheDir string
	// InputsReady, when set, is called once the run's inputs are built,
	// before its telemetry starts and its first request is sent (aiperf
	// drops the executable's pages the setup touched).
	InputsReady func()
}

// Result is what a finished run produced.
type Result struct {
	Summary *metrics.Summary
	// Files are where the run's files were stored.
	Files Artifacts
	// Backpressure counts sends that waited for the record queue.
	Backpressure int64
	// LatenessNS holds the schedule lateness of every open-loop send.
	LatenessNS []int64
	// Dropped counts requests cancelled at the end of the grace period or
	// when the target was down: left out of the results, as AIPerf does.
	Dropped int
	// Cancelled counts requests in flight when ctx was cancelled (an
	// interrupt): each is a CancelledError record, stored and counted in
	// the error summary.
	Cancelled int
	// Validity says whether the client kept its schedule (see Validity).
	Validity *Validity
	// Verdict is the outcome of the --threshold gates, stored as
	// verdict.json; nil without thresholds.
	Verdict *verdict.Verdict
	// Stability is the outcome of stability mode (Config.Stability); nil
	// when it is off.
	Stability *StabilityReport
}

// run holds the state shared by the phases of one benchmark.
type run struct {
	cfg    *Config
	opts   Options
	log    *slog.Logger
	clock  *record.Clock
	sender *sender
	ep     *endpoint.Endpoint
	epOpts *endpoint.Options
	convs  []dataset.Conversation
	// payloads[conv][turn] is the prebuilt body of a turn, nil when it
	// depends on live replies and is built at send time.
	payloads [][][]byte
	// storedOpts build the payloads inputs.json stores: secret extra inputs
	// redacted; epOpts itself when there is none.
	storedOpts *endpoint.Options
	sessions   sessionCounter
	// hooks wraps the transport for sticky sessions; nil otherwise.
	hooks *hookTransport
	// requests numbers requests across phases in the order they are sent.
	requests atomic.Int64
	// fixed is the replay plan when the run replays timestamps.
	fixed    *fixedSchedule
	sampler  dataset.Sampler
	sampleMu sync.Mutex // guards sampler, shared by overlapping phases
	seed     uint64
	mcfg     *metrics.Config
	// profStart is when the profiling phase began (clock ns), 0 before:
	// the start of AIPerf 0.13's observation window (--output-schema 1.4).
	profStart atomic.Int64
	// tel owns the run's telemetry; nil before it starts.
	tel *telemetryRun
	// shard is the run's place in its shard group; nil when not sharded.
	shard *shardState
	// startErr is why a shard's common start failed (see awaitStart).
	startErr error
	// tls is the TLS configuration of https targets and their /metrics
	// (see tlsConfig); nil means Go's defaults.
	tls *tls.Config
}

// Run executes the benchmark described by cfg (already validated) and writes
// its artifacts. It returns ErrAllFailed or ErrInterrupted (with a Result)
// when the run finished badly, and other errors when it could not start.
// Cancelling ctx (the first signal) stops sending, records the requests in
// flight as cancelled (CancelledError, see Result.Cancelled) and still
// stores the results so far, for at most cfg.ShutdownGrace after the
// cancellation: what is not stored by then stays in the local spool and the
// error names it. cfg is not modified.
func Run(ctx context.Context, cfg *Config, opts Options) (res *Result, err error) {
	c := *cfg
	cfg = &c
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ep, err := endpoint.Lookup(cfg.EndpointType)
	if err != nil {
		return nil, err
	}
	if cfg.Streaming && !ep.SupportsStreaming {
		log.Warn("endpoint type does not support streaming; --streaming turned off", "endpoint_type", ep.Name)
		cfg.Streaming = false
	}
	aws, err := newAWS(ctx, cfg, ep) // may set cfg.URL and cfg.EndpointPath
	if err != nil {
		return nil, err
	}
	path := cfg.EndpointPath
	if path == "" {
		path = ep.URLPath(cfg.pathModel(), cfg.Streaming)
	}
	bases, targets, err := cfg.targets(path)
	if err != nil {
		return nil, err
	}
	tc, err := tlsConfig(cfg)
	if err != nil {
		return nil, err
	}
	if err := checkAllReachable(ctx, bases, tc); err != nil {
		return nil, err
	}

	// The dataset is built before anything is stored: a bad dataset stops
	// the run with nothing written, and a timestamped trace switches the
	// run to fixed-schedule mode, which names its artifacts.
	r := &run{cfg: cfg, opts: opts, clock: record.NewClock(), ep: ep, log: log}
	tok, err := r.resolveTokenizer(ctx)
	if err != nil {
		return nil, err
	}
	r.seed = cfg.RandomSeed
	r.shard = newShardState(cfg)
	switch {
	case cfg.RandomSeedSet:
	case r.shard != nil:
		r.seed = groupSeed(cfg.RunGroup) // the same plan in every shard
	default:
		r.seed = rand.Uint64()
	}
	if err := r.buildDataset(ctx, tok); err != nil {
		return nil, err
	}
	r.recoverDeadRuns(ctx)
	arts, err := openArtifacts(ctx, cfg, r.clock, opts.Stores)
	if err != nil {
		return nil, err
	}
	// A run that fails before its end leaves no spool behind, unless it
	// holds records the store does not have (then the error names it).
	defer func() { err = errors.Join(err, arts.close()) }()
	if r.shard != nil {
		r.shard.store = arts.store
	}
	r.log = slog.New(slog.NewMultiHandler(log.Handler(), arts.logHandler(LogLevel(cfg.LogLevel))))
	transport := opts.Transport
	if transport == nil {
		tr := newTransport(cfg.EffectiveConcurrency())
		tr.TLSClientConfig = tc
		tr.DisableKeepAlives = cfg.ConnectionReuse == "never"
		defer tr.CloseIdleConnections()
		transport = tr
	}
	if cfg.ConnectionReuse == "sticky-user-sessions" {
		r.hooks = &hookTransport{base: transport, sticky: cfg.ConnectionReuse == "sticky-user-sessions"}
		defer r.hooks.closeAll()
		transport = r.hooks
	}
	r.sender = &sender{
		client:  &http.Client{Transport: transport},
		urls:    targets,
		ep:      ep,
		header:  staticHeaders(cfg, ep, opts.Version),
		clock:   r.clock,
		timeout: cfg.RequestTimeout,
		trace:   traceHTTP(cfg),
		poll:    newPoller(cfg, ep),
		aws:     aws,
		// Only the run's own transport enforces h1.WithDeadline.
		connDeadline: opts.Transport == nil,
	}
	goodput, err := metrics.ParseGoodput(cfg.Goodput)
	if err != nil {
		return nil, fmt.Errorf("goodput: %w", err)
	}
	r.mcfg = &metrics.Config{
		Streaming:           cfg.Streaming,
		ProducesTokens:      ep.ProducesTokens,
		TokenizesInput:      ep.TokenizesInput,
		Tokenizer:           tok,
		UseServerTokenCount: cfg.UseServerTokenCount,
		Goodput:             goodput,
		HTTPTrace:           traceHTTP(cfg),
		ProducesVideo:       ep.ProducesVideo,
		Schema14:            cfg.OutputSchema == "1.4",
	}
	r.tls = tc
	r.log.Info("benchmark starting", "url", redactedURLs(targets), "model", cfg.Models, "mode", cfg.Mode(), "run_id", arts.run.ID, "store", arts.run.Location())
	return r.execute(ctx, ep, arts)
}

// checkReachable dials the server once so that an unreachable server is a
// clear error before any request is counted.
func checkReachable(ctx context.Context, host, scheme string) error {
	host = hostPort(host, scheme)
	d := net.Dialer{Timeout: 5 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return fmt.Errorf("cannot reach the server at %s (is it running? check --url): %w", host, err)
	}
	return conn.Close()
}

// nextConversation returns the index of the conversation the next request
// sends.
func (r *run) nextConversation() int {
	r.sampleMu.Lock()
	defer r.sampleMu.Unlock()
	return r.sampler.Next()
}

// workerID names a concurrent sender slot as AIPerf names workers.
func workerID(slot int) string {
	// fmt.Sprintf("worker_%08x", …) by hand: it runs for every request.
	const hex = "0123456789abcdef"
	b := [15]byte{'w', 'o', 'r', 'k', 'e', 'r', '_'}
	h := uint32(slot) * 0x9E3779B1
	for i := 14; i >= 7; i-- {
		b[i] = hex[h&0xf]
		h >>= 4
	}
	return string(b[:])
}

// newRecord builds the record of one credit: the next turn of session s.
func (r *run) newRecord(spec *phaseSpec, c credit, s *session) *record.Record {
	turn := s.nextTurn()
	return &record.Record{
		RequestNum:            r.requestNum(spec, c),
		SessionNum:            s.num,
		ConversationID:        s.c.SessionID,
		TurnIndex:             s.turn,
		XRequestID:            uuid.NewString(),
		XCorrelationID:        s.corrID,
		Phase:                 spec.phase,
		WorkerID:              workerID(s.slot),
		Model:                 turn.Model,
		URLIndex:              s.url,
		CreditIssuedNS:        c.intended,
		InputTokens:           turn.InputTokens,
		InputText:             s.historyInput(r.countsHistory(), r.ep.SendsContext), // counted by the compute workers
		RequestedOutputTokens: turn.MaxTokens,
	}
}

// computeWorkers is how many goroutines compute per-record metrics
// (tokenizing outputs is the expensive part).
func computeWorkers() int { return max(1, runtime.GOMAXPROCS(0)) }

// LogLevel maps AIPerf's log level names onto slog levels (TRACE is below
// DEBUG; unknown names are INFO).
func LogLevel(level string) slog.Level {
	switch strings.ToUpper(level) {
	case "TRACE":
		return slog.LevelDebug - 4
	case "DEBUG":
		return slog.LevelDebug
	case "WARNING":
		return slog.LevelWarn
	case "ERROR", "CRITICAL":
		return slog.LevelError
	}
	return slog.LevelInfo
}
