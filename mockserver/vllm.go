package mockserver

import (
	"strconv"
	"sync/atomic"
	"time"
)

// modelName is the served model name in the vllm:* labels, as /v1/models
// lists it.
const modelName = "mock-model"

// finishReason indexes vllm:request_success_total by finished_reason.
type finishReason int8

const (
	finishNone finishReason = iota // not finished: the request was aborted
	finishStop
	finishLength
	finishAbort
	numFinishReasons
)

// finishNames are vLLM's finished_reason label values.
var finishNames = [numFinishReasons]string{"", "stop", "length", "abort"}

// finishFor maps a response's finish_reason to its index.
func finishFor(reason string) finishReason {
	if reason == "length" {
		return finishLength
	}
	return finishStop
}

// engine is the simulated vLLM engine behind the vllm:* metrics. The
// mock's generation requests pass through it (start, token events,
// finish, end); every update is atomic, so the request path takes no
// lock and allocates nothing.
type engine struct {
	maxNumSeqs int64
	blockSize  int
	numBlocks  int64

	running      atomic.Int64 // requests started and not ended
	kvBlocks     atomic.Int64 // KV-cache blocks held by them
	promptTokens atomic.Uint64
	success      [numFinishReasons]atomic.Uint64

	successLabels [numFinishReasons]string
	cacheInfo     string // the labels of vllm:cache_config_info

	ttft, itl, e2e    *histogram // nanoseconds
	reqPrompt, reqGen *histogram // tokens
}

// newEngine returns the engine for a validated configuration.
func newEngine(cfg *Config) *engine {
	const ns = 1e9 // nanoseconds per second
	e := &engine{
		maxNumSeqs: int64(cfg.MaxNumSeqs),
		blockSize:  cfg.BlockSize,
		numBlocks:  int64(cfg.NumGPUBlocks),
		ttft: newHistogram("vllm:time_to_first_token_seconds",
			"Time from a request's arrival to its first generated token, in seconds.", ttftBoundsSeconds, ns),
		itl: newHistogram("vllm:inter_token_latency_seconds",
			"Time between consecutive outputs of a request, in seconds.", itlBoundsSeconds, ns),
		e2e: newHistogram("vllm:e2e_request_latency_seconds",
			"Time from a request's arrival to its last token, in seconds.", requestLatencyBoundsSeconds, ns),
		reqPrompt: newHistogram("vllm:request_prompt_tokens",
			"Prompt tokens of each finished request.", tokenBounds(cfg.MaxModelLen), 1),
		reqGen: newHistogram("vllm:request_generation_tokens",
			"Generated tokens of each finished request.", tokenBounds(cfg.MaxModelLen), 1),
		cacheInfo: cacheConfigInfo(cfg),
	}
	for f := range e.successLabels {
		e.successLabels[f] = engineLabelsBefore + `,finished_reason="` + finishNames[f] + `",` + engineLabelsAfter
	}
	return e
}

// engineReq is one request's state in the engine; it lives in the
// request's own goroutine, so its fields need no synchronisation.
type engineReq struct {
	started bool
	arrival time.Time
	last    time.Time // when the latest token event was due; zero before the first
	prompt  int
	gen     int // tokens generated so far
	held    int // tokens whose KV-cache blocks are held
	blocks  int64
	finish  finishReason
}

// start admits r, which arrived at arrival with prompt tokens, and holds
// KV-cache blocks for the prompt plus reserve tokens (a non-streaming
// response reserves its whole completion, since it has no token events).
func (e *engine) start(r *engineReq, arrival time.Time, prompt, reserve int) {
	*r = engineReq{started: true, arrival: arrival, prompt: prompt}
	e.running.Add(1)
	e.hold(r, prompt+reserve)
}

// hold grows the tokens r holds in the KV cache by n, taking a block for
// every BlockSize tokens begun.
func (e *engine) hold(r *engineReq, n int) {
	r.held += n
	if blocks := int64((r.held + e.blockSize - 1) / e.blockSize); blocks != r.blocks {
		e.kvBlocks.Add(blocks - r.blocks)
		r.blocks = blocks
	}
}

// token records a streamed event of r carrying n generated tokens, due
// at at. The engine's times are the schedule's deadlines, not the moments
// the events leave the socket: like vLLM's engine-side timestamps they
// leave out the HTTP layer's lateness (which the client sees), and they
// cost no clock read. The first event gives the request's TTFT and
// completes its prefill (its prompt tokens count then, as vLLM counts
// them after prefill); each later one gives an inter-token latency, one
// per event as vLLM observes one per engine output.
func (e *engine) token(r *engineReq, n int, at time.Time) {
	if r.last.IsZero() {
		e.ttft.observeDuration(at.Sub(r.arrival))
		e.promptTokens.Add(uint64(r.prompt))
	} else {
		e.itl.observeDuration(at.Sub(r.last))
	}
	r.last = at
	r.gen += n
	e.hold(r, n)
}

// body records a non-streaming response of tokens generated tokens in
// events token events, the last due at last: its TTFT is the one drawn
// for it (an injected stall is not included), and the rest of its time
// is spread evenly over its events-1 inter-token latencies.
func (e *engine) body(r *engineReq, ttft time.Duration, last time.Time, events, tokens int, finish string) {
	e.ttft.observeDuration(ttft)
	e.promptTokens.Add(uint64(r.prompt))
	if events > 1 {
		decode := max(last.Sub(r.arrival)-ttft, 0)
		e.itl.observeN(uint64(decode)/uint64(events-1), uint64(events-1))
	}
	r.last = last
	r.gen = tokens
	r.finish = finishFor(finish)
}

// finished marks r as having sent its last token with the given finish
// reason ("stop" or "length").
func (e *engine) finished(r *engineReq, finish string) { r.finish = finishFor(finish) }

// end releases r's KV-cache blocks and counts it: a finished request in
// vllm:request_success_total by its reason and in the token histograms
// and the e2e one (arrival to its last token's deadline), an unfinished one (reset, client gone, server closed) as
// finished_reason="abort". A request never started is ignored.
func (e *engine) end(r *engineReq) {
	if !r.started {
		return
	}
	r.started = false
	e.kvBlocks.Add(-r.blocks)
	r.blocks = 0
	e.running.Add(-1)
	if r.finish == finishNone {
		e.success[finishAbort].Add(1)
		return
	}
	e.success[r.finish].Add(1)
	e.e2e.observeDuration(r.last.Sub(r.arrival))
	e.reqPrompt.observe(uint64(r.prompt))
	e.reqGen.observe(uint64(r.gen))
}

// engineLabels are the labels of every vllm:* series but the info gauge,
// split around where "le" and "finished_reason" sort.
const (
	engineLabelsBefore = `engine="0"`
	engineLabelsAfter  = `model_name="` + modelName + `"`
	engineLabels       = engineLabelsBefore + "," + engineLabelsAfter
)

// appendTo writes the vllm:* families; generated is the number of tokens
// generated so far (content and reasoning).
func (e *engine) appendTo(b []byte, generated uint64) []byte {
	n := e.running.Load()
	blocks := e.kvBlocks.Load()
	running, waiting := min(n, e.maxNumSeqs), max(n-e.maxNumSeqs, 0)
	if n > running {
		// Only the running requests would hold blocks; the rest wait.
		blocks = blocks * running / n
	}
	usage := min(float64(max(blocks, 0))/float64(e.numBlocks), 1)

	b = appendFamily(b, "vllm:num_requests_running", "gauge", "Requests in the engine's running batch.")
	b = appendSample(b, "vllm:num_requests_running", engineLabels, float64(running))
	b = appendFamily(b, "vllm:num_requests_waiting", "gauge", "Requests waiting for a slot in the running batch.")
	b = appendSample(b, "vllm:num_requests_waiting", engineLabels, float64(waiting))
	b = appendFamily(b, "vllm:gpu_cache_usage_perc", "gauge", "GPU KV-cache usage, 1 meaning full (deprecated name of vllm:kv_cache_usage_perc).")
	b = appendSample(b, "vllm:gpu_cache_usage_perc", engineLabels, usage)
	b = appendFamily(b, "vllm:kv_cache_usage_perc", "gauge", "KV-cache usage, 1 meaning full.")
	b = appendSample(b, "vllm:kv_cache_usage_perc", engineLabels, usage)

	prompt := e.promptTokens.Load()
	b = appendFamily(b, "vllm:prefix_cache_queries_total", "counter", "Prompt tokens looked up in the prefix cache.")
	b = appendSample(b, "vllm:prefix_cache_queries_total", engineLabels, float64(prompt))
	b = appendFamily(b, "vllm:prefix_cache_hits_total", "counter", "Prompt tokens found in the prefix cache (the mock caches none).")
	b = appendSample(b, "vllm:prefix_cache_hits_total", engineLabels, 0)
	b = appendFamily(b, "vllm:num_preemptions_total", "counter", "Requests preempted by the engine (the mock preempts none).")
	b = appendSample(b, "vllm:num_preemptions_total", engineLabels, 0)
	b = appendFamily(b, "vllm:prompt_tokens_total", "counter", "Prompt tokens prefilled.")
	b = appendSample(b, "vllm:prompt_tokens_total", engineLabels, float64(prompt))
	b = appendFamily(b, "vllm:generation_tokens_total", "counter", "Tokens generated.")
	b = appendSample(b, "vllm:generation_tokens_total", engineLabels, float64(generated))
	b = appendFamily(b, "vllm:request_success_total", "counter", "Requests finished, by finish reason.")
	for f := finishStop; f < numFinishReasons; f++ {
		b = appendSample(b, "vllm:request_success_total", e.successLabels[f], float64(e.success[f].Load()))
	}
	for _, h := range []*histogram{e.reqPrompt, e.reqGen, e.ttft, e.itl, e.e2e} {
		b = h.appendTo(b, engineLabelsBefore, engineLabelsAfter)
	}
	b = appendFamily(b, "vllm:cache_config_info", "gauge", "The engine's KV-cache configuration.")
	return appendSample(b, "vllm:cache_config_info", e.cacheInfo, 1)
}

// cacheConfigInfo returns the labels of vllm:cache_config_info for cfg,
// sorted by name as vLLM writes them, with Python's value spellings.
func cacheConfigInfo(cfg *Config) string {
	return `block_size="` + strconv.Itoa(cfg.BlockSize) +
		`",cache_dtype="auto",enable_prefix_caching="False",engine="0",gpu_memory_utilization="0.9"` +
		`,num_cpu_blocks="0",num_gpu_blocks="` + strconv.Itoa(cfg.NumGPUBlocks) +
		`",sliding_window="None",swap_space_bytes="0"`
}

// paddingBuckets are the upper bounds of the padding histograms (vLLM's
// request queue time buckets).
var paddingBuckets = [...]float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920}

// paddingSeriesPerAdapter is the series one padding label value adds: the
// buckets, +Inf, _sum and _count.
const paddingSeriesPerAdapter = len(paddingBuckets) + 3

// maxPaddingSeries bounds Config.MetricsPadding.
const maxPaddingSeries = 1_000_000

// appendPadding writes at least n more series (Config.MetricsPadding), so
// that /metrics is as large as a big server's (vLLM with many LoRA
// adapters, several engines): one histogram family with a label value per
// simulated adapter, whose observations follow the requests served so far
// (each adapter has seen requests/adapters of them, spread over the
// buckets), so every scrape under load differs from the last.
func appendPadding(b []byte, n int, requests uint64) []byte {
	if n <= 0 {
		return b
	}
	adapters := (n + paddingSeriesPerAdapter - 1) / paddingSeriesPerAdapter
	const name = "vllm:lora_request_queue_time_seconds"
	b = appendFamily(b, name, "histogram", "Time spent waiting in the queue, by LoRA adapter (padding for scrape benchmarks).")
	for a := 0; a < adapters; a++ {
		label := `model_name="mock-model",lora_name="adapter-` + strconv.Itoa(a) + `"`
		seen := requests / uint64(adapters)
		if uint64(a) < requests%uint64(adapters) {
			seen++
		}
		var cum uint64
		for i, le := range paddingBuckets {
			// Spread over the buckets: a share halving per bucket.
			cum += seen >> (i + 1)
			b = appendSample(b, name+"_bucket", label+`,le="`+strconv.FormatFloat(le, 'g', -1, 64)+`"`, float64(cum))
		}
		b = appendSample(b, name+"_bucket", label+`,le="+Inf"`, float64(seen))
		b = appendSample(b, name+"_sum", label, float64(seen)*0.42)
		b = appendSample(b, name+"_count", label, float64(seen))
	}
	return b
}
