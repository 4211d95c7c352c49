package metrics

// Kind says how a metric is computed.
type Kind int

// The metric kinds of AIPerf (§2.1).
const (
	// KindRecord is computed per request; its results form a distribution.
	KindRecord Kind = iota + 1
	// KindAggregate is a counter or extreme streamed over the records.
	KindAggregate
	// KindDerived is a formula over other results, computed at the end.
	KindDerived
)

// String returns "record", "aggregate" or "derived".
func (k Kind) String() string {
	switch k {
	case KindRecord:
		return "record"
	case KindAggregate:
		return "aggregate"
	case KindDerived:
		return "derived"
	}
	return "unknown"
}

// Flag is a bitmask of metric properties; the names follow AIPerf's
// MetricFlags.
type Flag uint32

// The metric flags of AIPerf, plus FlagNoStreamingConsole.
const (
	FlagStreamingOnly Flag = 1 << iota
	FlagErrorOnly
	FlagProducesTokensOnly
	FlagNoConsole
	FlagLargerIsBetter
	FlagInternal
	FlagSupportsAudioOnly
	FlagSupportsImageOnly
	FlagSupportsReasoning
	FlagExperimental
	FlagGoodput
	FlagNoIndividualRecords
	FlagTokenizesInputOnly
	FlagHTTPTraceOnly
	FlagSupportsVideoOnly
	FlagUsageDiffOnly
	FlagProducesVideoOnly
	// FlagNoStreamingConsole hides the metric from the console table of a
	// streaming run. It is ours, not AIPerf's: it records that AIPerf shows
	// E2E Output Token Throughput on the console only for non-streaming runs,
	// where Output Token Throughput Per User does not exist.
	FlagNoStreamingConsole
	// FlagSchema14Only marks the metrics AIPerf 0.13 added: they are
	// computed only for Config.Schema14 runs (--output-schema 1.4), so that
	// the 1.0 artifacts stay those of AIPerf 0.8. Ours, not AIPerf's.
	FlagSchema14Only

	// FlagStreamingTokensOnly is STREAMING_ONLY|PRODUCES_TOKENS_ONLY.
	FlagStreamingTokensOnly = FlagStreamingOnly | FlagProducesTokensOnly
)

// Has reports whether every bit of g is set in f.
func (f Flag) Has(g Flag) bool { return f&g == g }

// Metric describes one metric of the catalogue.
type Metric struct {
	// Tag is the stable id, e.g. "time_to_first_token".
	Tag string
	// Header is the human name, as written in the CSV and console.
	Header string
	// BaseUnit is the unit values are computed in ("ns", "tokens", ...).
	BaseUnit string
	// DisplayUnit is the unit values are exported in ("ms", "sec", ...).
	DisplayUnit string
	Kind        Kind
	Flags       Flag
	// DisplayOrder orders results and console rows (ascending).
	DisplayOrder int
}

// Enabled reports whether the metric applies to a run configured by cfg:
// streaming-only metrics need cfg.Streaming, token metrics need
// cfg.ProducesTokens, input-token metrics need cfg.TokenizesInput, goodput
// metrics need SLOs, usage-diff metrics need client-side token counts,
// HTTP-trace metrics need cfg.HTTPTrace, video output metrics need
// cfg.ProducesVideo, AIPerf 0.13's additions need cfg.Schema14, and the audio, image and video input metrics are
// never enabled here. One exception: AIPerf 0.13 writes
// output_sequence_length (0) for endpoints that produce no tokens too, so a
// cfg.Schema14 run has it without cfg.ProducesTokens.
func (m *Metric) Enabled(cfg *Config) bool {
	f := m.Flags
	switch {
	case f.Has(FlagStreamingOnly) && !cfg.Streaming,
		f.Has(FlagProducesTokensOnly) && !cfg.ProducesTokens && !(cfg.Schema14 && m.Tag == "output_sequence_length"),
		f.Has(FlagTokenizesInputOnly) && !cfg.TokenizesInput,
		f.Has(FlagGoodput) && len(cfg.Goodput) == 0,
		f.Has(FlagUsageDiffOnly) && cfg.UseServerTokenCount,
		f.Has(FlagHTTPTraceOnly) && !cfg.HTTPTrace,
		f.Has(FlagProducesVideoOnly) && !cfg.ProducesVideo,
		f.Has(FlagSchema14Only) && !cfg.Schema14,
		f&(FlagSupportsAudioOnly|FlagSupportsImageOnly|FlagSupportsVideoOnly) != 0:
		return false
	}
	return true
}

// Exported reports whether the metric may appear in any export (it is
// neither INTERNAL nor EXPERIMENTAL).
func (m *Metric) Exported() bool {
	return m.Flags&(FlagInternal|FlagExperimental) == 0
}

// Console reports whether the metric is a row of the console tables of a
// run configured by cfg. A Schema14 run shows the rows AIPerf 0.13 shows
// (see ConsoleGroup), others those of AIPerf 0.8.
func (m *Metric) Console(cfg *Config) bool {
	if !m.Enabled(cfg) || !m.Exported() || m.Flags.Has(FlagErrorOnly) {
		return false
	}
	if cfg.Schema14 {
		_, ok := console14[m.Tag]
		return ok
	}
	if m.Flags.Has(FlagNoConsole) {
		return false
	}
	return !(m.Flags.Has(FlagNoStreamingConsole) && cfg.Streaming)
}

// Catalog returns every metric aiperf-go knows, ordered by DisplayOrder.
// The slice is a fresh copy the caller may modify.
func Catalog() []Metric {
	out := make([]Metric, len(catalog))
	for i := range catalog {
		out[i] = catalog[i].Metric
	}
	return out
}

// Lookup returns the metric with the given tag, or false.
func Lookup(tag string) (Metric, bool) {
	id, ok := tagIDs[tag]
	if !ok {
		return Metric{}, false
	}
	return catalog[id].Metric, true
}

// metricID indexes catalog; the constants are in DisplayOrder.
type metricID int

const (
	idTTFT metricID = iota
	idTTST
	idTTFO
	idLatency
	idVideoInference
	idVideoPeakMemory
	idDecode
	idITL
	idICL
	idOTPU
	idPrefill
	idE2E
	idOSL
	idOutputTokens
	idReasoningTokens
	idISL
	idOutputTput
	idInputTput
	idTotalTput
	idReqTput
	idGoodput
	idGoodCount
	idGoodFraction
	idCompleted
	idErrRate
	idReqCount
	idErrCount
	idErrISL
	idTotalErrISL
	idCtxOverflow
	idDuration
	idMinRequest
	idMaxResponse
	idTotalOSL
	idTotalOutput
	idTotalReasoning
	idTotalISL
	idUsagePrompt
	idUsageCompletion
	idUsageTotal
	idUsageReasoning
	idUsageCacheRead
	idTotalUsagePrompt
	idTotalUsageCompletion
	idTotalUsageTotal
	idTotalUsageReasoning
	idTotalUsageCacheRead
	idCacheReadPct
	idPromptDiff
	idCompletionDiff
	idReasoningDiff
	idDiscrepancies
	idOSLDiff
	idOSLMismatches
	idHTTPBlocked
	idHTTPDNS
	idHTTPConnecting
	idHTTPSending
	idHTTPWaiting
	idHTTPReceiving
	idHTTPReused
	idHTTPDataSent
	idHTTPChunksSent
	idHTTPDataReceived
	idHTTPChunksReceived
	idHTTPOverhead
	idHTTPDuration
	idHTTPTotal
	numIDs
)

// def is a catalogue entry with what the computation needs beyond Metric.
type def struct {
	Metric
	// toDisplay multiplies a base value into the display unit and toBase
	// does the reverse, both as AIPerf's unit conversion computes them
	// (value * other.per_second / self.per_second).
	toDisplay, toBase float64
	// integer reports whole-number base values (ns, tokens, counts).
	integer bool
	// list marks a list-valued record metric (inter_chunk_latency).
	list bool
}

// Units and unit factors.
const (
	unitNS       = "ns"
	unitMS       = "ms"
	unitSec      = "sec"
	unitTokens   = "tokens"
	unitRequests = "requests"
	unitPercent  = "%"
	unitRatio    = "ratio"
	unitReqSec   = "requests/sec"
	unitTokSec   = "tokens/sec"
	unitTokUser  = "tokens/sec/user"
	unitCount    = "count"
	unitBytes    = "B"
	unitKB       = "KB"
	unitMB       = "MB"

	nsToMS    = 1e3 / 1e9 // 1e-6, as Python computes 1000/1_000_000_000
	msToNS    = 1e9 / 1e3
	nsToSec   = 1 / 1e9
	secFactor = 1.0
)

var catalog = [numIDs]def{
	idTTFT:    timeDef("time_to_first_token", "Time to First Token", FlagStreamingTokensOnly, 100),
	idTTST:    timeDef("time_to_second_token", "Time to Second Token", FlagStreamingTokensOnly, 200),
	idTTFO:    timeDef("time_to_first_output_token", "Time to First Output Token", FlagStreamingTokensOnly|FlagSupportsReasoning, 210),
	idLatency: timeDef("request_latency", "Request Latency", 0, 300),
	// Video metrics (video_generation): the server's own numbers, from the
	// completed job object (§2.3). Inference time is kept in seconds and
	// shown in ms, as AIPerf's MetricTimeUnit converts it.
	idVideoInference:  {Metric: Metric{"video_inference_time", "Video Inference Time", unitSec, unitMS, KindRecord, FlagProducesVideoOnly, 310}, toDisplay: 1e3, toBase: 1e-3},
	idVideoPeakMemory: plainDef("video_peak_memory", "Video Peak Memory", unitMB, KindRecord, FlagProducesVideoOnly, 311, false),
	idDecode:          timeDef("decode_duration", "Decode Duration", FlagStreamingTokensOnly|FlagNoConsole, 350),
	idITL:             {Metric: Metric{"inter_token_latency", "Inter Token Latency", unitNS, unitMS, KindRecord, FlagStreamingTokensOnly, 400}, toDisplay: nsToMS, toBase: msToNS},
	idICL:             {Metric: Metric{"inter_chunk_latency", "Inter Chunk Latency", unitNS, unitMS, KindRecord, FlagStreamingTokensOnly | FlagNoConsole, 410}, toDisplay: nsToMS, toBase: msToNS, integer: true, list: true},
	idOTPU:            plainDef("output_token_throughput_per_user", "Output Token Throughput Per User", unitTokUser, KindRecord, FlagStreamingTokensOnly|FlagLargerIsBetter, 500, false),
	idPrefill:         plainDef("prefill_throughput_per_user", "Prefill Throughput Per User", unitTokUser, KindRecord, FlagStreamingTokensOnly|FlagTokenizesInputOnly|FlagLargerIsBetter|FlagNoConsole, 505, false),
	idE2E:             plainDef("e2e_output_token_throughput", "E2E Output Token Throughput", unitTokUser, KindRecord, FlagProducesTokensOnly|FlagLargerIsBetter|FlagNoStreamingConsole, 510, false),

	idOSL:             tokenDef("output_sequence_length", "Output Sequence Length", KindRecord, FlagProducesTokensOnly|FlagLargerIsBetter, 600),
	idOutputTokens:    tokenDef("output_token_count", "Output Token Count", KindRecord, FlagProducesTokensOnly|FlagLargerIsBetter|FlagNoConsole, 610),
	idReasoningTokens: tokenDef("reasoning_token_count", "Reasoning Token Count", KindRecord, FlagProducesTokensOnly|FlagLargerIsBetter|FlagSupportsReasoning|FlagNoConsole, 620),
	idISL:             tokenDef("input_sequence_length", "Input Sequence Length", KindRecord, FlagTokenizesInputOnly|FlagLargerIsBetter, 700),

	idOutputTput:   plainDef("output_token_throughput", "Output Token Throughput", unitTokSec, KindDerived, FlagProducesTokensOnly|FlagLargerIsBetter, 800, false),
	idInputTput:    plainDef("input_token_throughput", "Input Token Throughput", unitTokSec, KindDerived, FlagTokenizesInputOnly|FlagLargerIsBetter|FlagSchema14Only, 805, false),
	idTotalTput:    plainDef("total_token_throughput", "Total Token Throughput", unitTokSec, KindDerived, FlagProducesTokensOnly|FlagLargerIsBetter|FlagNoConsole, 810, false),
	idReqTput:      plainDef("request_throughput", "Request Throughput", unitReqSec, KindDerived, FlagLargerIsBetter, 900, false),
	idGoodput:      plainDef("goodput", "Goodput", unitReqSec, KindDerived, FlagGoodput, 1000, false),
	idGoodCount:    plainDef("good_request_count", "Good Request Count", unitRequests, KindAggregate, FlagGoodput|FlagNoConsole, 1010, true),
	idGoodFraction: plainDef("good_request_fraction", "GoodRequestFraction", unitRatio, KindDerived, FlagGoodput|FlagLargerIsBetter|FlagNoConsole, 1020, false),
	idCompleted:    plainDef("completed_request_count", "Completed Requests (Success + Error)", unitRequests, KindDerived, FlagNoIndividualRecords|FlagSchema14Only, 1075, true),
	idErrRate:      plainDef("request_error_rate", "Request Error Rate", unitPercent, KindDerived, FlagNoIndividualRecords|FlagSchema14Only, 1080, false),
	idReqCount:     plainDef("request_count", "Request Count", unitRequests, KindAggregate, FlagLargerIsBetter|FlagNoIndividualRecords, 1100, true),
	idErrCount:     plainDef("error_request_count", "Error Request Count", unitRequests, KindAggregate, FlagErrorOnly|FlagNoIndividualRecords|FlagNoConsole, 1200, true),
	idErrISL:       tokenDef("error_isl", "Error Input Sequence Length", KindRecord, FlagTokenizesInputOnly|FlagLargerIsBetter|FlagNoConsole|FlagErrorOnly, 1210),
	idTotalErrISL:  tokenDef("total_error_isl", "Total Error Input Sequence Length", KindDerived, FlagTokenizesInputOnly|FlagLargerIsBetter|FlagNoConsole|FlagErrorOnly, 1220),

	// AIPerf 0.13 registers no display order for it; 1230 keeps it by
	// the other error metrics.
	idCtxOverflow: plainDef("context_overflow_count", "Context Overflow Count", unitRequests, KindAggregate, FlagErrorOnly|FlagNoIndividualRecords|FlagNoConsole|FlagSchema14Only, 1230, true),
	idDuration:    {Metric: Metric{"benchmark_duration", "Benchmark Duration", unitNS, unitSec, KindDerived, FlagNoConsole, 1300}, toDisplay: nsToSec, toBase: 1e9, integer: true},
	idMinRequest:  {Metric: Metric{"min_request_timestamp", "Minimum Request Timestamp", unitNS, unitNS, KindAggregate, FlagNoConsole | FlagNoIndividualRecords | FlagInternal, 1310}, toDisplay: 1, toBase: 1, integer: true},
	idMaxResponse: {Metric: Metric{"max_response_timestamp", "Maximum Response Timestamp", unitNS, unitNS, KindAggregate, FlagNoConsole | FlagNoIndividualRecords | FlagInternal, 1320}, toDisplay: 1, toBase: 1, integer: true},

	idTotalOSL:       tokenDef("total_osl", "Total Output Sequence Length", KindDerived, FlagProducesTokensOnly|FlagLargerIsBetter|FlagNoConsole, 1400),
	idTotalOutput:    tokenDef("total_output_tokens", "Total Output Tokens", KindDerived, FlagProducesTokensOnly|FlagLargerIsBetter|FlagNoConsole, 1410),
	idTotalReasoning: tokenDef("total_reasoning_tokens", "Total Reasoning Tokens", KindDerived, FlagProducesTokensOnly|FlagLargerIsBetter|FlagSupportsReasoning|FlagNoConsole, 1420),
	idTotalISL:       tokenDef("total_isl", "Total Input Sequence Length", KindDerived, FlagTokenizesInputOnly|FlagLargerIsBetter|FlagNoConsole, 1430),

	idUsagePrompt:     tokenDef("usage_prompt_tokens", "Usage Prompt Tokens", KindRecord, FlagTokenizesInputOnly|FlagLargerIsBetter|FlagNoConsole, 1500),
	idUsageCompletion: tokenDef("usage_completion_tokens", "Usage Completion Tokens", KindRecord, FlagProducesTokensOnly|FlagLargerIsBetter|FlagNoConsole, 1510),
	idUsageTotal:      tokenDef("usage_total_tokens", "Usage Total Tokens", KindRecord, FlagProducesTokensOnly|FlagLargerIsBetter|FlagNoConsole, 1520),
	idUsageReasoning:  tokenDef("usage_reasoning_tokens", "Usage Reasoning Tokens", KindRecord, FlagProducesTokensOnly|FlagSupportsReasoning|FlagLargerIsBetter|FlagNoConsole, 1530),
	idUsageCacheRead:  tokenDef("usage_prompt_cache_read_tokens", "Usage Prompt Cache Read Tokens", KindRecord, FlagLargerIsBetter|FlagNoConsole, 1540),

	idTotalUsagePrompt:     tokenDef("total_usage_prompt_tokens", "Total Usage Prompt Tokens", KindDerived, FlagTokenizesInputOnly|FlagLargerIsBetter|FlagNoConsole, 1600),
	idTotalUsageCompletion: tokenDef("total_usage_completion_tokens", "Total Usage Completion Tokens", KindDerived, FlagProducesTokensOnly|FlagLargerIsBetter|FlagNoConsole, 1610),
	idTotalUsageTotal:      tokenDef("total_usage_total_tokens", "Total Usage Total Tokens", KindDerived, FlagProducesTokensOnly|FlagLargerIsBetter|FlagNoConsole, 1620),
	idTotalUsageReasoning:  tokenDef("total_usage_reasoning_tokens", "Total Usage Reasoning Tokens", KindDerived, FlagProducesTokensOnly|FlagSupportsReasoning|FlagLargerIsBetter|FlagNoConsole, 1630),
	idTotalUsageCacheRead:  tokenDef("total_usage_prompt_cache_read_tokens", "Total Usage Prompt Cache Read Tokens", KindDerived, FlagLargerIsBetter|FlagNoConsole, 1640),
	idCacheReadPct:         plainDef("overall_usage_prompt_cache_read_pct", "Overall Usage Prompt Cache Read %", unitPercent, KindDerived, FlagLargerIsBetter|FlagNoConsole, 1650, false),

	// The headers below keep AIPerf 0.8.0's inconsistent "%" suffixes, as
	// written in fixture baseline-chat/profile_export_aiperf.csv.
	idPromptDiff:     plainDef("usage_prompt_tokens_diff_pct", "Usage Prompt Diff", unitPercent, KindRecord, FlagTokenizesInputOnly|FlagUsageDiffOnly|FlagNoConsole, 1700, false),
	idCompletionDiff: plainDef("usage_completion_tokens_diff_pct", "Usage Completion Diff %", unitPercent, KindRecord, FlagProducesTokensOnly|FlagUsageDiffOnly|FlagNoConsole, 1710, false),
	idReasoningDiff:  plainDef("usage_reasoning_tokens_diff_pct", "Usage Reasoning Diff %", unitPercent, KindRecord, FlagProducesTokensOnly|FlagSupportsReasoning|FlagUsageDiffOnly|FlagNoConsole, 1720, false),
	idDiscrepancies:  plainDef("usage_discrepancy_count", "Usage Discrepancy Count", unitRequests, KindAggregate, FlagUsageDiffOnly|FlagNoIndividualRecords|FlagNoConsole, 1730, true),
	idOSLDiff:        plainDef("osl_mismatch_diff_pct", "OSL Mismatch Diff %", unitPercent, KindRecord, FlagProducesTokensOnly|FlagNoConsole, 1800, false),
	idOSLMismatches:  plainDef("osl_mismatch_count", "OSL Mismatch Count", unitRequests, KindAggregate, FlagProducesTokensOnly|FlagNoIndividualRecords|FlagNoConsole, 1810, true),

	// HTTP trace metrics (§2.3), with AIPerf's headers and display orders.
	// They are shown only in the --show-trace-timing table.
	idHTTPBlocked:        timeDef("http_req_blocked", "HTTP Blocked", httpTrace, 2000),
	idHTTPDNS:            timeDef("http_req_dns_lookup", "HTTP DNS Lookup", httpTrace, 2010),
	idHTTPConnecting:     timeDef("http_req_connecting", "HTTP Connecting", httpTrace, 2020),
	idHTTPSending:        timeDef("http_req_sending", "HTTP Sending", httpTrace, 2030),
	idHTTPWaiting:        timeDef("http_req_waiting", "HTTP Waiting (TTFB)", httpTrace, 2040),
	idHTTPReceiving:      timeDef("http_req_receiving", "HTTP Receiving", httpTrace, 2050),
	idHTTPReused:         plainDef("http_req_connection_reused", "HTTP Connection Reused", unitRatio, KindRecord, httpTrace, 2060, true),
	idHTTPDataSent:       sizeDef("http_req_data_sent", "HTTP Data Sent", 2070),
	idHTTPChunksSent:     plainDef("http_req_chunks_sent", "HTTP Chunks Sent", unitCount, KindRecord, httpTrace, 2080, true),
	idHTTPDataReceived:   sizeDef("http_req_data_received", "HTTP Data Received", 2090),
	idHTTPChunksReceived: plainDef("http_req_chunks_received", "HTTP Chunks Received", unitCount, KindRecord, httpTrace, 2100, true),
	idHTTPOverhead:       timeDef("http_req_connection_overhead", "HTTP Connection Overhead", httpTrace, 2110),
	idHTTPDuration:       timeDef("http_req_duration", "HTTP Duration (excl. conn)", httpTrace, 2120),
	idHTTPTotal:          timeDef("http_req_total", "HTTP Total Time", httpTrace, 2130),
}

// httpTrace are the flags of every HTTP trace metric.
const httpTrace = FlagHTTPTraceOnly | FlagNoConsole

// tagIDs maps a tag to its catalogue index; read-only after init.
var tagIDs = func() map[string]metricID {
	m := make(map[string]metricID, numIDs)
	for i := range catalog {
		m[catalog[i].Tag] = metricID(i)
	}
	return m
}()

func timeDef(tag, header string, flags Flag, order int) def {
	return def{
		Metric:    Metric{tag, header, unitNS, unitMS, KindRecord, flags, order},
		toDisplay: nsToMS, toBase: msToNS, integer: true,
	}
}

// sizeDef is an HTTP trace byte count, exported in KB of 1,024 bytes as
// AIPerf's MetricSizeUnit converts it.
func sizeDef(tag, header string, order int) def {
	return def{
		Metric:    Metric{tag, header, unitBytes, unitKB, KindRecord, httpTrace, order},
		toDisplay: 1.0 / 1024, toBase: 1024, integer: true,
	}
}

func tokenDef(tag, header string, kind Kind, flags Flag, order int) def {
	return plainDef(tag, header, unitTokens, kind, flags, order, true)
}

func plainDef(tag, header, unit string, kind Kind, flags Flag, order int, integer bool) def {
	return def{
		Metric:    Metric{tag, header, unit, unit, kind, flags, order},
		toDisplay: secFactor, toBase: secFactor, integer: integer,
	}
}

// enabledSet is the per-configuration applicability of every metric.
type enabledSet [numIDs]bool

func newEnabledSet(cfg *Config) enabledSet {
	var en enabledSet
	for i := range catalog {
		en[i] = catalog[i].Enabled(cfg)
	}
	return en
}
