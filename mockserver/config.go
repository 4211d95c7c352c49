package mockserver

import (
	"cmp"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Defaults applied by New to Config fields left at their zero value.
const (
	DefaultAddr           = "127.0.0.1:8000"
	DefaultTokensPerChunk = 1
	DefaultOutputTokens   = 16
	DefaultErrorStatus    = 500
	DefaultStallDuration  = time.Second
	DefaultEmbeddingDims  = 8
	DefaultVersion        = "dev"
	DefaultMaxNumSeqs     = 256
	DefaultBlockSize      = 16
	DefaultNumGPUBlocks   = 8192
	DefaultMaxModelLen    = 32768
)

// maxFakeGPUs bounds Config.FakeGPUs.
const maxFakeGPUs = 1024

// Config describes the simulated model. The zero value is a usable
// configuration: it listens on DefaultAddr, answers without delay, sends
// usage and a role-only first chunk, counts prompt tokens exactly and
// injects no faults.
type Config struct {
	// Addr is the host:port Start listens on; "" means DefaultAddr.
	// Port 0 picks a free port; Server.Addr reports it.
	Addr string

	// TTFT is the mean delay from a request's arrival to its first
	// token-bearing event (reasoning or content). Non-streaming responses
	// are sent when the last token would have been.
	TTFT time.Duration
	// TTFTStddev is the standard deviation of TTFT; samples are drawn from
	// a normal distribution and clamped at 0.
	TTFTStddev time.Duration
	// ITL is the mean delay between consecutive token-bearing events.
	ITL time.Duration
	// ITLStddev is the standard deviation of each ITL gap, drawn like
	// TTFTStddev and clamped at 0.
	ITLStddev time.Duration

	// TokensPerChunk is how many tokens each streamed event carries (the
	// last one may carry fewer); 0 means DefaultTokensPerChunk.
	TokensPerChunk int
	// OutputTokens is the number of content tokens generated when the
	// request sets neither max_completion_tokens nor max_tokens; 0 means
	// DefaultOutputTokens.
	OutputTokens int
	// EOSTokens, when > 0, makes the model stop ("finish_reason":"stop")
	// after this many content tokens even if the request allows more,
	// unless the request sets "ignore_eos": true. 0 means the model always
	// generates up to the request's limit.
	EOSTokens int
	// ReasoningTokens is the number of tokens emitted as reasoning_content
	// deltas before the content (chat only). Like OpenAI, they count
	// against max_completion_tokens/max_tokens when the request sets one.
	ReasoningTokens int

	// NoUsage suppresses usage. Otherwise usage is sent in every
	// non-streaming response and, when the request sets
	// stream_options.include_usage, in a trailing chunk with empty choices.
	NoUsage bool
	// NoRoleChunk suppresses the role-only first chat chunk
	// ({"role":"assistant","content":""}) that is otherwise sent as soon as
	// the request arrives, like vLLM does.
	NoRoleChunk bool
	// EstimatePromptTokens makes usage.prompt_tokens len(bytes)/4 instead
	// of the exact o200k_base count (the builtin tokenizer's Count), which
	// costs ~5 ns per byte of ASCII text and ~90 ns per byte of other text.
	EstimatePromptTokens bool
	// EmbeddingDims is the length of each embedding vector when the
	// request does not set "dimensions"; 0 means DefaultEmbeddingDims.
	EmbeddingDims int

	// ErrorRate is the probability in [0,1] that a request is answered
	// with ErrorStatus and an OpenAI-style JSON error body, at once.
	ErrorRate float64
	// ErrorStatus is the HTTP status of injected errors; 0 means
	// DefaultErrorStatus.
	ErrorStatus int
	// ResetRate is the probability in [0,1] that the connection is reset
	// (TCP RST) mid-stream, after a random number of content chunks fewer
	// than the full count; a non-streaming request is reset instead of
	// answered.
	ResetRate float64
	// StallRate is the probability in [0,1] that the response stops for
	// StallDuration before a random content chunk, then continues.
	StallRate float64
	// StallDuration is the length of an injected stall; 0 means
	// DefaultStallDuration.
	StallDuration time.Duration
	// MalformedRate is the probability in [0,1] that one "data: {not json"
	// event is sent before a random content chunk (non-streaming: the body
	// is "{not json").
	MalformedRate float64
	// VideoFailRate is the probability in [0,1] that a video generation
	// job ends "failed" (with an error object) instead of "completed".
	VideoFailRate float64

	// Seed seeds the latency and fault random numbers. Request i (in
	// arrival order) draws from a generator seeded with (Seed, i), so runs
	// with the same Seed and arrival order are identical. It also derives
	// the fake GPUs' UUIDs.
	Seed uint64

	// Version is the mock's version, sent in the Server response header
	// ("aiperf-mock/VERSION") and served at GET /version; "" means
	// DefaultVersion.
	Version string

	// MaxNumSeqs is the number of requests the simulated engine runs at
	// once, like vLLM's --max-num-seqs: generation requests beyond it are
	// reported as waiting in vllm:num_requests_waiting (the mock still
	// serves them at once). 0 means DefaultMaxNumSeqs.
	MaxNumSeqs int
	// BlockSize is the number of tokens per KV-cache block, like vLLM's
	// --block-size; 0 means DefaultBlockSize.
	BlockSize int
	// NumGPUBlocks is the KV-cache capacity in blocks, the denominator of
	// vllm:kv_cache_usage_perc; 0 means DefaultNumGPUBlocks.
	NumGPUBlocks int
	// MaxModelLen bounds the buckets of the request token histograms
	// (vllm:request_prompt_tokens, vllm:request_generation_tokens), as
	// vLLM's --max-model-len does; 0 means DefaultMaxModelLen.
	MaxModelLen int

	// FakeGPUs is the number of simulated GPUs whose DCGM-exporter metrics
	// are served at GET /dcgm/metrics; 0 serves none.
	FakeGPUs int
	// DCGMAddr, when set, is a host:port on which Start also serves the
	// fake GPUs' metrics at GET /metrics, like dcgm-exporter (port 9400);
	// it needs FakeGPUs > 0. Port 0 picks a free port; Server.DCGMAddr
	// reports it.
	DCGMAddr string
	// MetricsPadding adds at least this many series to /metrics (one
	// histogram family per simulated LoRA adapter, following the load),
	// for benchmarks of the cost of scraping a big endpoint; 0 adds none.
	MetricsPadding int

	// RecordTimelines makes the server keep, per X-Request-ID, the arrival
	// time, the correlation id, the request body and the send time of every
	// event; see Server.Timeline. Memory grows with the number of requests,
	// so it is meant for tests.
	RecordTimelines bool

	// SigV4 makes the AWS routes (SageMaker's /endpoints/…, Bedrock's
	// /model/…) check every request's SigV4 signature against these
	// credentials, answering 403 with AWS's error shape on a mismatch;
	// nil checks nothing. See sigv4.go.
	SigV4 *SigV4Credentials

	// TLS, when not nil, makes Start serve HTTPS (HTTP/1.1 over TLS) with
	// it: its Certificates must hold the server's certificate (see
	// SelfSigned and LoadKeyPair). URL then starts with https://. The
	// DCGMAddr listener stays plain HTTP. It is not part of the JSON form
	// of a Config (tests hand configs to child processes as JSON).
	TLS *tls.Config `json:"-"`
}

// withDefaults returns c with zero fields replaced by their defaults, or an
// error naming the first invalid field.
func (c Config) withDefaults() (Config, error) {
	c.Addr = cmp.Or(c.Addr, DefaultAddr)
	c.TokensPerChunk = cmp.Or(c.TokensPerChunk, DefaultTokensPerChunk)
	c.OutputTokens = cmp.Or(c.OutputTokens, DefaultOutputTokens)
	c.ErrorStatus = cmp.Or(c.ErrorStatus, DefaultErrorStatus)
	c.StallDuration = cmp.Or(c.StallDuration, DefaultStallDuration)
	c.EmbeddingDims = cmp.Or(c.EmbeddingDims, DefaultEmbeddingDims)
	c.Version = cmp.Or(c.Version, DefaultVersion)
	c.MaxNumSeqs = cmp.Or(c.MaxNumSeqs, DefaultMaxNumSeqs)
	c.BlockSize = cmp.Or(c.BlockSize, DefaultBlockSize)
	c.NumGPUBlocks = cmp.Or(c.NumGPUBlocks, DefaultNumGPUBlocks)
	c.MaxModelLen = cmp.Or(c.MaxModelLen, DefaultMaxModelLen)
	var errs []error
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"ttft", c.TTFT}, {"ttft stddev", c.TTFTStddev}, {"itl", c.ITL}, {"itl stddev", c.ITLStddev}, {"stall duration", c.StallDuration}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("%s %v is negative", d.name, d.v))
		}
	}
	for _, n := range []struct {
		name string
		v    int
	}{{"tokens per chunk", c.TokensPerChunk}, {"output tokens", c.OutputTokens}, {"eos tokens", c.EOSTokens}, {"reasoning tokens", c.ReasoningTokens}, {"embedding dims", c.EmbeddingDims},
		{"max num seqs", c.MaxNumSeqs}, {"block size", c.BlockSize}, {"num gpu blocks", c.NumGPUBlocks},
		{"max model len", c.MaxModelLen}, {"fake gpus", c.FakeGPUs}} {
		if n.v < 0 {
			errs = append(errs, fmt.Errorf("%s %d is negative", n.name, n.v))
		}
	}
	for _, r := range []struct {
		name string
		v    float64
	}{{"error rate", c.ErrorRate}, {"reset rate", c.ResetRate}, {"stall rate", c.StallRate}, {"malformed rate", c.MalformedRate}, {"video fail rate", c.VideoFailRate}} {
		if !(r.v >= 0 && r.v <= 1) {
			errs = append(errs, fmt.Errorf("%s %v is outside [0,1]", r.name, r.v))
		}
	}
	if c.ErrorStatus < 100 || c.ErrorStatus > 599 {
		errs = append(errs, fmt.Errorf("error status %d is not an HTTP status", c.ErrorStatus))
	}
	if c.EmbeddingDims > maxEmbeddingDims {
		errs = append(errs, fmt.Errorf("embedding dims %d exceeds %d", c.EmbeddingDims, maxEmbeddingDims))
	}
	if c.MetricsPadding < 0 || c.MetricsPadding > maxPaddingSeries {
		errs = append(errs, fmt.Errorf("metrics padding %d is not in [0, %d]", c.MetricsPadding, maxPaddingSeries))
	}
	if c.FakeGPUs > maxFakeGPUs {
		errs = append(errs, fmt.Errorf("fake gpus %d exceeds %d", c.FakeGPUs, maxFakeGPUs))
	}
	if c.DCGMAddr != "" && c.FakeGPUs == 0 {
		errs = append(errs, errors.New("dcgm address needs fake gpus"))
	}
	if strings.IndexFunc(c.Version, func(r rune) bool { return r <= ' ' || r > '~' || r == '"' || r == '\\' }) >= 0 {
		// It goes into a header and a JSON string unescaped.
		errs = append(errs, fmt.Errorf("version %q is not printable ASCII without spaces and quotes", c.Version))
	}
	if err := errors.Join(errs...); err != nil {
		return c, fmt.Errorf("invalid config: %w", err)
	}
	return c, nil
}
