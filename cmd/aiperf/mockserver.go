package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/internal/gcfloor"
	"github.com/aiperf-go/aiperf/mockserver"
)

// mockServerFlags are the mock-server subcommand's settings; latencies are
// in milliseconds on the command line.
type mockServerFlags struct {
	host             string
	port             int
	ttft, ttftStddev float64
	itl, itlStddev   float64
	stallDuration    float64
	cfg              mockserver.Config
	tls              mockTLS
	sigv4            mockSigV4
	stdout           io.Writer
}

// newMockServerCommand returns the "mock-server" subcommand: an
// OpenAI-compatible server with scripted latency for demos and tests. It
// prints "mock server listening on http://ADDR" once listening and serves
// until ctx is cancelled.
func newMockServerCommand(stdout, stderr io.Writer) *ff.Command {
	f := &mockServerFlags{stdout: stdout}
	fs := ff.NewFlagSet("mock-server")
	fs.StringVar(&f.host, 0, "host", "127.0.0.1", "address to listen on")
	fs.IntVar(&f.port, 0, "port", 8000, "port to listen on (0 picks a free one)")
	fs.Float64Var(&f.ttft, 0, "ttft", 20, "mean time to first token (ms)")
	fs.Float64Var(&f.ttftStddev, 0, "ttft-stddev", 0, "standard deviation of TTFT (ms; normal, clamped at 0)")
	fs.Float64Var(&f.itl, 0, "itl", 5, "mean inter-token latency (ms)")
	fs.Float64Var(&f.itlStddev, 0, "itl-stddev", 0, "standard deviation of ITL (ms; normal, clamped at 0)")
	fs.IntVar(&f.cfg.TokensPerChunk, 0, "tokens-per-chunk", mockserver.DefaultTokensPerChunk, "tokens per streamed chunk")
	fs.IntVar(&f.cfg.OutputTokens, 0, "output-tokens", mockserver.DefaultOutputTokens, "content tokens when the request sets no max_tokens/max_completion_tokens")
	fs.IntVar(&f.cfg.EOSTokens, 0, "eos-tokens", 0, "stop after this many content tokens unless the request sets ignore_eos (0: never)")
	fs.IntVar(&f.cfg.ReasoningTokens, 0, "reasoning-tokens", 0, "reasoning_content tokens sent before the content (chat)")
	fs.BoolVar(&f.cfg.NoUsage, 0, "no-usage", "never send usage")
	fs.BoolVar(&f.cfg.NoRoleChunk, 0, "no-role-chunk", "omit the role-only first chat chunk")
	fs.BoolVar(&f.cfg.EstimatePromptTokens, 0, "estimate-prompt-tokens", "report prompt_tokens as bytes/4 instead of the o200k_base count")
	fs.IntVar(&f.cfg.EmbeddingDims, 0, "embedding-dims", mockserver.DefaultEmbeddingDims, "embedding length when the request sets no dimensions")
	fs.Float64Var(&f.cfg.ErrorRate, 0, "error-rate", 0, "fraction of requests answered with --error-status, in [0,1]")
	fs.IntVar(&f.cfg.ErrorStatus, 0, "error-status", mockserver.DefaultErrorStatus, "HTTP status of injected errors")
	fs.Float64Var(&f.cfg.ResetRate, 0, "reset-rate", 0, "fraction of requests whose connection is reset mid-response, in [0,1]")
	fs.Float64Var(&f.cfg.StallRate, 0, "stall-rate", 0, "fraction of requests that stall for --stall-duration, in [0,1]")
	fs.Float64Var(&f.stallDuration, 0, "stall-duration", float64(mockserver.DefaultStallDuration/time.Millisecond), "length of an injected stall (ms)")
	fs.Float64Var(&f.cfg.MalformedRate, 0, "malformed-rate", 0, "fraction of requests that get one malformed event, in [0,1]")
	fs.Uint64Var(&f.cfg.Seed, 0, "seed", 0, "seed for latency and fault randomness and the fake GPUs' UUIDs")
	fs.BoolVar(&f.cfg.RecordTimelines, 0, "record-timelines", "keep per-request event times, served at GET /debug/timeline/{x-request-id}")
	fs.IntVar(&f.cfg.MaxNumSeqs, 0, "max-num-seqs", mockserver.DefaultMaxNumSeqs, "requests the simulated engine runs at once; the rest count as waiting in vllm:num_requests_waiting")
	fs.IntVar(&f.cfg.BlockSize, 0, "block-size", mockserver.DefaultBlockSize, "tokens per simulated KV-cache block")
	fs.IntVar(&f.cfg.NumGPUBlocks, 0, "num-gpu-blocks", mockserver.DefaultNumGPUBlocks, "simulated KV-cache capacity in blocks (vllm:kv_cache_usage_perc is blocks held over this)")
	fs.IntVar(&f.cfg.MaxModelLen, 0, "max-model-len", mockserver.DefaultMaxModelLen, "largest bucket bound of the vllm:request_*_tokens histograms")
	fs.IntVar(&f.cfg.FakeGPUs, 0, "fake-gpus", 0, "serve DCGM-exporter metrics for this many simulated GPUs at /dcgm/metrics (0: none)")
	fs.IntVar(&f.cfg.MetricsPadding, 0, "metrics-padding", 0, "add at least this many series to /metrics (a histogram per simulated LoRA adapter, following the load), to benchmark scraping a big endpoint")
	fs.StringVar(&f.cfg.DCGMAddr, 0, "dcgm-address", "", "also serve the fake GPUs' metrics at /metrics on this host:port, like dcgm-exporter (e.g. 127.0.0.1:9401; needs --fake-gpus)")
	fs.BoolVar(&f.tls.selfSigned, 0, "tls", "serve HTTPS with a self-signed certificate made at start (for localhost, 127.0.0.1, ::1 and --host); see --tls-cert-out")
	fs.StringVar(&f.tls.certOut, 0, "tls-cert-out", "", "write the --tls certificate (PEM) to `FILE`, for aiperf profile --ca-cert FILE")
	fs.StringVar(&f.tls.certFile, 0, "tls-cert", "", "serve HTTPS with this PEM certificate `FILE` (needs --tls-key)")
	fs.StringVar(&f.tls.keyFile, 0, "tls-key", "", "PEM private key `FILE` of --tls-cert")
	f.sigv4.register(fs)
	return &ff.Command{
		Name:      "mock-server",
		Usage:     "aiperf mock-server [flags]",
		ShortHelp: "serve an OpenAI-compatible mock of an inference server",
		LongHelp: "Serves /v1/chat/completions, /v1/completions, /v1/embeddings, /v1/models, /version, /health and /metrics " +
			"with scripted latency, exact o200k_base token counts and optional fault injection, until interrupted. " +
			"Every response carries \"Server: aiperf-mock/VERSION\". /metrics has the mock's own mock_* metrics and " +
			"vLLM's vllm:* metrics (running and waiting requests, KV-cache usage, token counters, TTFT, inter-token " +
			"and end-to-end latency histograms) of a simulated engine driven by the actual load. With --fake-gpus N, " +
			"/dcgm/metrics (and /metrics on --dcgm-address) serves dcgm-exporter's DCGM_FI_* metrics for N simulated " +
			"H100 GPUs whose power, utilisation and energy follow the load.",
		Flags: fs,
		Exec:  f.exec,
	}
}

// ms converts milliseconds to a duration.
func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// exec serves until ctx is done.
func (f *mockServerFlags) exec(ctx context.Context, args []string) error {
	if len(args) > 0 {
		return command.Usage(fmt.Errorf("mock-server takes no arguments, got %q", args))
	}
	cfg := f.cfg
	cfg.Addr = net.JoinHostPort(f.host, strconv.Itoa(f.port))
	cfg.Version = Version
	cfg.TTFT, cfg.TTFTStddev = ms(f.ttft), ms(f.ttftStddev)
	cfg.ITL, cfg.ITLStddev = ms(f.itl), ms(f.itlStddev)
	cfg.StallDuration = ms(f.stallDuration)
	if f.stallDuration == 0 {
		cfg.StallDuration = time.Nanosecond // an explicit 0 would mean the default
	}
	tc, err := f.tls.config(f.host)
	if err != nil {
		return err
	}
	cfg.TLS = tc
	if cfg.SigV4, err = f.sigv4.credentials(); err != nil {
		return err
	}
	srv, err := mockserver.New(cfg)
	if err != nil {
		return command.Usage(err)
	}
	// Its collections would take CPU from a client measured beside it.
	defer gcfloor.Start(gcfloor.Default)()
	if err := srv.Start(ctx); err != nil {
		return fmt.Errorf("mock server: %w", err)
	}
	fmt.Fprintf(f.stdout, "mock server listening on %s\n", srv.URL())
	if addr := srv.DCGMAddr(); addr != "" {
		fmt.Fprintf(f.stdout, "fake DCGM exporter (%d GPUs) listening on http://%s/metrics\n", cfg.FakeGPUs, addr)
	}
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		return fmt.Errorf("mock server: %w", err)
	}
	return nil
}
