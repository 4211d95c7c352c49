package mockserver

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// endpoint indexes the per-endpoint counters.
type endpoint int

const (
	epChat endpoint = iota
	epCompletions
	epEmbeddings
	epTGI
	epResponses
	epMessages
	epRankings
	epKServe
	numEndpoints
)

var endpointNames = [numEndpoints]string{"chat", "completions", "embeddings", "huggingface_generate", "responses", "messages", "rankings", "kserve"}

// fault indexes the injected-fault counters.
type fault int

const (
	faultError fault = iota
	faultReset
	faultStall
	faultMalformed
	numFaults
)

var faultNames = [numFaults]string{"error", "reset", "stall", "malformed"}

// ttftBuckets are the upper bounds, in seconds, of the TTFT histogram.
var ttftBuckets = [...]float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// metrics holds the counters served on /metrics; all fields are updated
// atomically, so serving them never blocks requests.
type metrics struct {
	requests        [numEndpoints]atomic.Uint64
	faults          [numFaults]atomic.Uint64
	promptTokens    atomic.Uint64
	contentTokens   atomic.Uint64
	reasoningTokens atomic.Uint64
	inFlight        atomic.Int64
	maxInFlight     atomic.Int64
	ttftCounts      [len(ttftBuckets) + 1]atomic.Uint64 // non-cumulative; last is +Inf
	ttftSumNanos    atomic.Int64
}

// enter counts a request in flight and updates the maximum.
func (m *metrics) enter(ep endpoint) {
	m.requests[ep].Add(1)
	n := m.inFlight.Add(1)
	for {
		cur := m.maxInFlight.Load()
		if n <= cur || m.maxInFlight.CompareAndSwap(cur, n) {
			return
		}
	}
}

// leave ends a request started with enter.
func (m *metrics) leave() { m.inFlight.Add(-1) }

// observeTTFT adds one streaming request's time to first token.
func (m *metrics) observeTTFT(d time.Duration) {
	s := d.Seconds()
	i := 0
	for i < len(ttftBuckets) && s > ttftBuckets[i] {
		i++
	}
	m.ttftCounts[i].Add(1)
	m.ttftSumNanos.Add(int64(d))
}

// serveMetrics answers GET /metrics: the mock's own metrics, then the
// simulated vLLM engine's, in the Prometheus text exposition format
// (version 0.0.4).
func (s *Server) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	b := s.m.appendTo(make([]byte, 0, 16384))
	b = s.engine.appendTo(b, s.m.contentTokens.Load()+s.m.reasoningTokens.Load())
	b = appendPadding(b, s.cfg.MetricsPadding, s.m.requests[epChat].Load()+s.m.requests[epCompletions].Load())
	h := w.Header()
	h.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

// appendTo writes the mock_* families.
func (m *metrics) appendTo(b []byte) []byte {
	family := func(name, typ, help string) { b = appendFamily(b, name, typ, help) }
	sample := func(name, labels string, v uint64) {
		b = append(b, name...)
		b = append(b, labels...)
		b = append(b, ' ')
		b = strconv.AppendUint(b, v, 10)
		b = append(b, '\n')
	}
	family("mock_requests_total", "counter", "Inference requests received, by endpoint.")
	for i, name := range endpointNames {
		sample("mock_requests_total", `{endpoint="`+name+`"}`, m.requests[i].Load())
	}
	family("mock_faults_injected_total", "counter", "Faults injected, by kind.")
	for i, name := range faultNames {
		sample("mock_faults_injected_total", `{fault="`+name+`"}`, m.faults[i].Load())
	}
	family("mock_prompt_tokens_total", "counter", "Prompt tokens received.")
	sample("mock_prompt_tokens_total", "", m.promptTokens.Load())
	family("mock_generated_tokens_total", "counter", "Tokens generated, by kind.")
	sample("mock_generated_tokens_total", `{kind="content"}`, m.contentTokens.Load())
	sample("mock_generated_tokens_total", `{kind="reasoning"}`, m.reasoningTokens.Load())
	family("mock_requests_in_flight", "gauge", "Inference requests being served.")
	b = append(b, "mock_requests_in_flight "...)
	b = strconv.AppendInt(b, m.inFlight.Load(), 10)
	b = append(b, '\n')
	family("mock_time_to_first_token_seconds", "histogram", "Time from a streaming request's arrival to its first token event.")
	var cum uint64
	for i, le := range ttftBuckets {
		cum += m.ttftCounts[i].Load()
		sample("mock_time_to_first_token_seconds_bucket", `{le="`+strconv.FormatFloat(le, 'g', -1, 64)+`"}`, cum)
	}
	cum += m.ttftCounts[len(ttftBuckets)].Load()
	sample("mock_time_to_first_token_seconds_bucket", `{le="+Inf"}`, cum)
	b = append(b, "mock_time_to_first_token_seconds_sum "...)
	b = strconv.AppendFloat(b, time.Duration(m.ttftSumNanos.Load()).Seconds(), 'g', -1, 64)
	b = append(b, '\n')
	sample("mock_time_to_first_token_seconds_count", "", cum)
	return b
}
