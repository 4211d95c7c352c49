package main

import (
	"context"
	"flag"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/peterbourgon/ff/v4"
	"github.com/peterbourgon/ff/v4/ffval"

	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/internal/secret"
	"github.com/aiperf-go/aiperf/runner"
)

// flagGroup is one section of `aiperf profile --help`, as AIPerf groups them.
type flagGroup struct {
	fs *ff.FlagSet
}

// add registers a flag and its aliases, all setting the same value. A
// `backticked` word in usage is the flag's placeholder in the help; a zero
// default (meaning "unset") is not shown.
func (g flagGroup) add(short rune, long string, v flag.Value, usage string, aliases ...string) {
	placeholder := ""
	if before, rest, ok := strings.Cut(usage, "`"); ok {
		if word, after, ok := strings.Cut(rest, "`"); ok {
			placeholder, usage = word, before+word+after
		}
	}
	def := v.String()
	cfg := ff.FlagConfig{ShortName: short, LongName: long, Value: v, Usage: usage, Placeholder: placeholder,
		NoDefault: def == "" || def == "0" || def == "false"}
	if _, err := g.fs.AddFlag(cfg); err != nil {
		panic(err) // a programming error: duplicate flag names
	}
	for _, a := range aliases {
		alias := ff.FlagConfig{LongName: a, Value: v, Usage: "alias of --" + long, Placeholder: placeholder, NoDefault: true}
		if _, err := g.fs.AddFlag(alias); err != nil {
			panic(err)
		}
	}
}

// profileFlags binds every profile setting into cfg and returns the flag set
// to parse (its parents are the remaining groups, in help order).
func profileFlags(cfg *runner.Config, verbose *int, configFile *string) *ff.FlagSet {
	names := []string{"Endpoint", "Input", "Conversation Input", "Multimodal Input", "Tokenizer", "Load Generator", "Goodput", "Output", "Server Metrics", "GPU Telemetry", "UI & Logging"}
	groups := make([]flagGroup, len(names))
	for i, n := range names {
		groups[i] = flagGroup{ff.NewFlagSet(n)}
	}
	for i := 0; i < len(groups)-1; i++ {
		groups[i].fs.SetParent(groups[i+1].fs)
	}
	ep, in, conv, media, tok, load, good, out, sm, gpu, ui := groups[0], groups[1], groups[2], groups[3], groups[4], groups[5], groups[6], groups[7], groups[8], groups[9], groups[10]
	str := func(p *string) flag.Value { return ffval.NewValueDefault(p, *p) }
	num := func(p *float64) flag.Value { return finiteFloat{p} }
	integer := func(p *int) flag.Value { return ffval.NewValueDefault(p, *p) }
	boolean := func(p *bool) flag.Value { return ffval.NewValueDefault(p, *p) }

	ep.add('m', "model", listValue{&cfg.Models, true}, "`MODEL` name(s) to benchmark, comma-separated", "model-names")
	ep.add(0, "model-selection-strategy", str(&cfg.ModelSelectionStrategy), "how a model is chosen per request: round_robin or random")
	var urlSet bool
	ep.add('u', "url", urlList{cfg, &urlSet}, "base `URL` of the server (http:// is added without a scheme); repeatable or comma-separated: requests go round robin over the URLs, every turn of a session to its first turn's URL")
	ep.add(0, "url-strategy", str(&cfg.URLStrategy), "how a request's URL is chosen among several --url: round_robin (per session)")
	ep.add(0, "insecure", boolean(&cfg.Insecure), "do not verify the TLS certificates of https servers (AIPerf: AIPERF_HTTP_SSL_VERIFY=false)")
	ep.add(0, "http-ssl-verify", sslVerify{&cfg.Insecure}, "verify the TLS certificates of https servers; false is --insecure (AIPerf's AIPERF_HTTP_SSL_VERIFY)")
	ep.add(0, "ca-cert", str(&cfg.CACert), "PEM `FILE` of CA certificates trusted for https servers beside the system's (SSL_CERT_FILE also works)")
	ep.add(0, "aws-service", str(&cfg.AWSService), "sign requests with AWS SigV4 for `SERVICE`: sagemaker (the endpoint type's body to /endpoints/{--model}/invocations) or bedrock (implied by --endpoint-type bedrock_converse or bedrock_messages); credentials from the AWS default chain; without --url: the regional endpoint")
	ep.add(0, "aws-region", str(&cfg.AWSRegion), "AWS `REGION` of --aws-service (default: AWS_REGION or the profile's)")
	ep.add(0, "endpoint", str(&cfg.EndpointPath), "custom endpoint `PATH` (default: the endpoint type's path)", "custom-endpoint")
	ep.add(0, "endpoint-type", str(&cfg.EndpointType), "endpoint `TYPE`: "+strings.Join(endpoint.Names(), ", "))
	ep.add(0, "service-kind", str(&cfg.ServiceKind), "GenAI-Perf's service `KIND`: triton (--endpoint-type kserve unless given; HTTP only) or openai (the OpenAI types); dynamic_grpc and tensorrtllm_engine are not supported")
	ep.add(0, "backend", str(&cfg.Backend), "Triton `BACKEND` whose input tensors --endpoint-type kserve sends: tensorrtllm (default) or vllm")
	ep.add(0, "streaming", boolean(&cfg.Streaming), "stream responses (SSE); required for TTFT and ITL")
	ep.add(0, "request-timeout-seconds", secondsValue{d: &cfg.RequestTimeout}, "per-request timeout in `SECONDS`")
	ep.add(0, "api-key", str(&cfg.APIKey), "API `KEY`, sent as Authorization: Bearer (never stored)")
	ep.add('H', "header", listValue{p: &cfg.Headers}, "extra request header `Name:Value` (repeatable)")
	ep.add(0, "extra-inputs", listValue{p: &cfg.ExtraInputs}, "extra body field `key:value` or a JSON object (repeatable)")
	ep.add(0, "endpoint-template", str(&cfg.EndpointTemplate), "request body `TEMPLATE` of --endpoint-type template: a named template (nv-embedqa), a Jinja2 file, or an inline Jinja2 body (AIPerf: --extra-inputs payload_template:…)")
	ep.add(0, "endpoint-response-field", str(&cfg.EndpointResponseField), "JMESPath `EXPR` selecting the response data of --endpoint-type template, e.g. choices[0].message.content; unset: auto-detect (AIPerf: --extra-inputs response_field:…)")
	ep.add(0, "use-legacy-max-tokens", boolean(&cfg.UseLegacyMaxTokens), "send max_tokens instead of max_completion_tokens")
	ep.add(0, "use-server-token-count", boolean(&cfg.UseServerTokenCount), "take token counts from the server's usage field")
	ep.add(0, "download-video-content", boolean(&cfg.DownloadVideoContent), "video_generation: download each completed video (GET /v1/videos/{id}/content); request latency still ends at completion")
	ep.add(0, "http.video-poll-interval", secondsValue{d: &cfg.VideoPollInterval}, "video_generation: `SECONDS` between polls of a job (env AIPERF_HTTP_VIDEO_POLL_INTERVAL; default 0.1)")

	in.add(0, "isl", sweepTokens{&cfg.ISLMean, &cfg.ISLList}, "mean input sequence length in `TOKENS`; a list (128,512) or range (128:1024, powers of two; 100:400:100) sweeps", "prompt-input-tokens-mean", "synthetic-input-tokens-mean")
	in.add(0, "isl-stddev", num(&cfg.ISLStddev), "standard deviation of the input length in `TOKENS`", "prompt-input-tokens-stddev", "synthetic-input-tokens-stddev")
	in.add(0, "osl", sweepTokens{&cfg.OSLMean, &cfg.OSLList}, "mean output sequence length (max tokens) in `TOKENS`; unset: no limit; a list or range sweeps, as --isl", "prompt-output-tokens-mean", "output-tokens-mean")
	in.add(0, "osl-stddev", num(&cfg.OSLStddev), "standard deviation of the output length in `TOKENS`", "prompt-output-tokens-stddev", "output-tokens-stddev")
	in.add(0, "num-dataset-entries", sweepCount{&cfg.NumDatasetEntries, &cfg.NumDatasetEntriesList}, "number of unique prompts (`N`); a list (100,200) or range (100:300:100; no step: every integer) sweeps", "num-prompts")
	in.add('b', "prompt-batch-size", sweepInt{&cfg.PromptBatchSize, &cfg.PromptBatchSizeList}, "texts per request (`N`); a list (1,4) or range (1:8, powers of two) sweeps", "batch-size-text")
	in.add(0, "random-seed", seedValue{&cfg.RandomSeed, &cfg.RandomSeedSet}, "`SEED` for every random choice (prompts, lengths, arrivals)")
	in.add(0, "input-file", str(&cfg.InputFile), "custom dataset `PATH` (a JSONL/CSV file, or a directory of random_pool files)")
	in.add(0, "custom-dataset-type", str(&cfg.CustomDatasetType), "`TYPE` of --input-file: single_turn, multi_turn, random_pool, mooncake_trace, bailian_trace or burst_gpt_trace (default: detected)")
	in.add(0, "public-dataset", str(&cfg.PublicDataset), "public `DATASET`: sharegpt (downloaded once into the cache; with --input-file, read from that local copy)")
	in.add(0, "dataset-sampling-strategy", str(&cfg.DatasetSampling), "`STRATEGY`: sequential, random or shuffle (default: the dataset's)")
	in.add(0, "seq-dist", str(&cfg.SeqDist), "ISL/OSL mixture `SPEC`: 'ISL,OSL:P;...', '[(ISL,OSL):P,...]' or JSON {\"pairs\":[...]}", "sequence-distribution")
	in.add(0, "isl-block-size", integer(&cfg.ISLBlockSize), "trace hash block size in `TOKENS` (default: mooncake 512, bailian 16)")
	in.add(0, "synthesis-max-isl", integer(&cfg.SynthesisMaxISL), "drop trace rows with more than `TOKENS` input tokens")
	in.add(0, "synthesis-max-osl", integer(&cfg.SynthesisMaxOSL), "cap trace rows' output length at `TOKENS`")
	synthesisFlags(in, cfg)
	in.add(0, "ignore-trace-delays", boolean(&cfg.IgnoreTraceDelays), "drop the timestamps and delays of a trace")
	in.add(0, "num-prefix-prompts", integer(&cfg.NumPrefixPrompts), "`N` shared prefix prompts, one prepended to each conversation's first turn")
	in.add(0, "prefix-prompt-length", integer(&cfg.PrefixPromptLength), "length of each prefix prompt in `TOKENS`")
	in.add(0, "shared-system-prompt-length", integer(&cfg.SharedSystemPromptLength), "one system prompt of `TOKENS` shared by every conversation")
	in.add(0, "system-prompt", str(&cfg.SystemPrompt), "verbatim system prompt `TEXT` for every conversation, before any system message of the dataset (synthetic, file and public datasets)")
	in.add(0, "system-prompt-file", str(&cfg.SystemPromptFile), "as --system-prompt, the text of UTF-8 `FILE` (read at start)")
	in.add(0, "user-context-prompt-length", integer(&cfg.UserContextPromptLength), "a distinct leading user message of `TOKENS` per conversation")
	in.add(0, "rankings-passages-mean", num(&cfg.RankingsPassagesMean), "rankings: mean `N` passages per request")
	in.add(0, "rankings-passages-stddev", num(&cfg.RankingsPassagesStddev), "rankings: standard deviation of the passage count (`N`)")
	in.add(0, "rankings-passages-prompt-token-mean", num(&cfg.RankingsPassageTokensMean), "rankings: mean passage length in `TOKENS`")
	in.add(0, "rankings-passages-prompt-token-stddev", num(&cfg.RankingsPassageTokensStddev), "rankings: passage length standard deviation in `TOKENS`")
	in.add(0, "rankings-query-prompt-token-mean", num(&cfg.RankingsQueryTokensMean), "rankings: mean query length in `TOKENS`")
	in.add(0, "rankings-query-prompt-token-stddev", num(&cfg.RankingsQueryTokensStddev), "rankings: query length standard deviation in `TOKENS`")

	conv.add(0, "num-sessions", integer(&cfg.NumSessions), "`N` conversations to run (a stop condition; random_pool's pool size)", "num-conversations", "conversation-num")
	conv.add(0, "session-turns-mean", num(&cfg.SessionTurnsMean), "mean `TURNS` per synthetic conversation")
	conv.add(0, "session-turns-stddev", num(&cfg.SessionTurnsStddev), "standard deviation of the turns per conversation (`TURNS`)")
	conv.add(0, "session-turn-delay-mean", num(&cfg.SessionTurnDelayMean), "mean delay between turns in `MS`")
	conv.add(0, "session-turn-delay-stddev", num(&cfg.SessionTurnDelayStddev), "standard deviation of the delay between turns in `MS`")
	conv.add(0, "session-delay-ratio", num(&cfg.SessionDelayRatio), "scale every turn delay by `RATIO`")

	media.add(0, "image-width-mean", num(&cfg.ImageWidthMean), "synthetic image width mean in `PIXELS` (images need width and height)")
	media.add(0, "image-width-stddev", num(&cfg.ImageWidthStddev), "image width standard deviation in `PIXELS`")
	media.add(0, "image-height-mean", num(&cfg.ImageHeightMean), "synthetic image height mean in `PIXELS`")
	media.add(0, "image-height-stddev", num(&cfg.ImageHeightStddev), "image height standard deviation in `PIXELS`")
	media.add(0, "image-format", str(&cfg.ImageFormat), "`FORMAT`: png, jpeg or random")
	media.add(0, "image-batch-size", integer(&cfg.ImageBatchSize), "images per request (`N`)", "batch-size-image")
	media.add(0, "audio-length-mean", num(&cfg.AudioLengthMean), "synthetic audio length mean in `SECONDS`")
	media.add(0, "audio-length-stddev", num(&cfg.AudioLengthStddev), "audio length standard deviation in `SECONDS`")
	media.add(0, "audio-format", str(&cfg.AudioFormat), "`FORMAT`: wav, mp3 or random (drawn per clip)")
	media.add(0, "audio-sample-rates", numberList{floats: &cfg.AudioSampleRates, set: new(bool)}, "sample rates in `KHZ`, comma- or space-separated; one is picked per clip")
	media.add(0, "audio-depths", numberList{ints: &cfg.AudioDepths, set: new(bool)}, "bit `DEPTHS` (8, 16, 24, 32), comma- or space-separated; one is picked per clip")
	media.add(0, "audio-num-channels", integer(&cfg.AudioNumChannels), "`CHANNELS`: 1 or 2")
	media.add(0, "audio-batch-size", integer(&cfg.AudioBatchSize), "audio clips per request (`N`)", "batch-size-audio")
	media.add(0, "video-width", integer(&cfg.VideoWidth), "synthetic video width in `PIXELS` (video needs width and height, and ffmpeg)")
	media.add(0, "video-height", integer(&cfg.VideoHeight), "synthetic video height in `PIXELS`")
	media.add(0, "video-fps", num(&cfg.VideoFPS), "video frames per second (`FPS`)")
	media.add(0, "video-duration", num(&cfg.VideoDuration), "video length in `SECONDS`")
	media.add(0, "video-synth-type", str(&cfg.VideoSynthType), "`TYPE`: moving_shapes, grid_clock or noise")
	media.add(0, "video-codec", str(&cfg.VideoCodec), "ffmpeg `CODEC` (libvpx-vp9, libx264, ...)")
	media.add(0, "video-format", str(&cfg.VideoFormat), "`FORMAT`: webm or mp4")
	media.add(0, "video-audio-num-channels", integer(&cfg.VideoAudioNumChannels), "audio track `CHANNELS`: 0 (none), 1 or 2")
	media.add(0, "video-batch-size", integer(&cfg.VideoBatchSize), "videos per request (`N`)", "batch-size-video")

	tok.add(0, "tokenizer", str(&cfg.Tokenizer), "`TOKENIZER`: a Hugging Face model id, a local tokenizer.json or directory, or builtin (tiktoken o200k_base, offline); default: the model")
	tok.add(0, "tokenizer-revision", str(&cfg.TokenizerRevision), "Hugging Face `REVISION` (branch, tag or commit) of the tokenizer")
	tok.add(0, "tokenizer-trust-remote-code", boolean(&cfg.TokenizerTrustRemoteCode), "accepted for AIPerf compatibility; only tokenizer.json is read and no remote code ever runs")

	load.add(0, "concurrency", sweepInt{&cfg.Concurrency, &cfg.ConcurrencyList}, "`N` concurrent requests (closed loop), or a ceiling with --request-rate; a list (1,2,4,8) or range (1:8, powers of two; 2:8:2) sweeps, one run per value")
	load.add(0, "request-rate", sweepFloat{&cfg.RequestRate, &cfg.RequestRateList}, "`RPS` requests per second (open loop); a list (10,20,40) or range (10:40:10) sweeps, one run per value")
	load.add(0, "sweep-type", str(&cfg.SweepType), "`TYPE`: how several sweep lists (--concurrency or --request-rate, --isl, --osl, --num-dataset-entries, --prompt-batch-size) combine, grid (every combination; default) or zip (element-wise, equal lengths); under aiperf analyze the setting to sweep: concurrency, request_rate, input_sequence_length, num_dataset_entries or batch_size (--prompt-batch-size)")
	load.add(0, "arrival-pattern", str(&cfg.ArrivalPattern), "`PATTERN`: constant, poisson or gamma", "request-rate-mode")
	load.add(0, "arrival-smoothness", num(&cfg.ArrivalSmoothness), "gamma `SHAPE`: < 1 bursty, 1 poisson, > 1 smooth", "vllm-burstiness")
	load.add(0, "request-count", integer(&cfg.RequestCount), "`N` requests to send (default max(10, 2*concurrency))", "num-requests")
	load.add(0, "benchmark-duration", secondsValue{d: &cfg.BenchmarkDuration}, "stop sending after this many `SECONDS`")
	load.add(0, "benchmark-grace-period", secondsValue{d: &cfg.GracePeriod, infOK: true}, "`SECONDS` to wait for in-flight requests after the duration, or inf")
	load.add(0, "warmup-request-count", integer(&cfg.WarmupRequestCount), "`N` requests sent before profiling, excluded from metrics", "num-warmup-requests")
	load.add(0, "warmup-duration", secondsValue{d: &cfg.WarmupDuration}, "warm up for `SECONDS` before profiling")
	load.add(0, "num-warmup-sessions", integer(&cfg.NumWarmupSessions), "warm up with `N` sessions (conversations)", "num-warmup-conversations")
	load.add(0, "warmup-concurrency", integer(&cfg.WarmupConcurrency), "warmup concurrency `N` (default: --concurrency)")
	load.add(0, "warmup-prefill-concurrency", integer(&cfg.WarmupPrefillConcurrency), "warmup prefill concurrency `N` (default: --prefill-concurrency)")
	load.add(0, "warmup-request-rate", num(&cfg.WarmupRequestRate), "warmup `RPS` (default: --request-rate)")
	load.add(0, "warmup-arrival-pattern", str(&cfg.WarmupArrivalPattern), "warmup arrival `PATTERN` (default: --arrival-pattern)")
	load.add(0, "warmup-grace-period", secondsValue{d: &cfg.WarmupGracePeriod, infOK: true}, "`SECONDS` to wait for warmup requests in flight after a warmup duration (default inf)")
	load.add(0, "warmup-concurrency-ramp-duration", secondsValue{d: &cfg.WarmupConcurrencyRamp}, "ramp the warmup concurrency up over `SECONDS`")
	load.add(0, "warmup-request-rate-ramp-duration", secondsValue{d: &cfg.WarmupRequestRateRamp}, "ramp the warmup rate up over `SECONDS`")
	load.add(0, "warmup-prefill-concurrency-ramp-duration", secondsValue{d: &cfg.WarmupPrefillConcurrencyRamp}, "ramp the warmup prefill concurrency up over `SECONDS`")
	load.add(0, "user-centric-rate", num(&cfg.UserCentricRate), "total `QPS` shared by --num-users users, each sending a turn every num-users/QPS s")
	load.add(0, "num-users", integer(&cfg.NumUsers), "`N` simulated users for --user-centric-rate")
	load.add(0, "prefill-concurrency", integer(&cfg.PrefillConcurrency), "at most `N` requests waiting for their first token (needs --streaming)")
	load.add(0, "concurrency-ramp-duration", secondsValue{d: &cfg.ConcurrencyRamp}, "raise the concurrency from 1 to its target over `SECONDS`")
	load.add(0, "prefill-concurrency-ramp-duration", secondsValue{d: &cfg.PrefillConcurrencyRamp}, "raise the prefill concurrency from 1 to its target over `SECONDS`")
	load.add(0, "request-rate-ramp-duration", secondsValue{d: &cfg.RequestRateRamp}, "raise the request rate to its target over `SECONDS`")
	load.add(0, "request-cancellation-rate", num(&cfg.RequestCancellationRate), "cancel this `PERCENT` of requests (0-100)")
	load.add(0, "request-cancellation-delay", secondsValue{d: &cfg.RequestCancellationDelay}, "cancel after `SECONDS` from sending")
	load.add(0, "connection-reuse-strategy", str(&cfg.ConnectionReuse), "`STRATEGY`: pooled, never or sticky-user-sessions")
	load.add(0, "failure-window", secondsValue{d: &cfg.FailureWindow}, "stop the run as failed (exit 1) when no request succeeds for `SECONDS` after one failed: the target is down; 0 never stops")
	load.add(0, "lateness-threshold-ms", msValue{d: &cfg.LatenessThreshold}, "mark the run degraded when the schedule lateness p99 exceeds `MS`")
	load.add(0, "fixed-schedule", boolean(&cfg.FixedSchedule), "replay the dataset's timestamps (on by default for timestamped traces)")
	load.add(0, "fixed-schedule-auto-offset", boolean(&cfg.FixedScheduleAutoOffset), "start the schedule at the first timestamp")
	load.add(0, "fixed-schedule-start-offset", optFloat{&cfg.FixedScheduleStartOffset, &cfg.FixedScheduleStartOffsetSet}, "replay from this timestamp (`MS`, inclusive)")
	load.add(0, "fixed-schedule-end-offset", optFloat{&cfg.FixedScheduleEndOffset, &cfg.FixedScheduleEndOffsetSet}, "replay up to this timestamp (`MS`, inclusive)")

	load.add(0, "shard-index", integer(&cfg.ShardIndex), "run shard `I` of --shard-count (default: the scheduler's array index: JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX, CLOUD_RUN_TASK_INDEX, BATCH_TASK_INDEX)")
	load.add(0, "shard-count", integer(&cfg.ShardCount), "split the benchmark over `N` shards (processes), each running its part of the same plan (see docs/fleet.md)")
	load.add(0, "run-group", str(&cfg.RunGroup), "`ID` the shards of one benchmark share: each writes runs/ID/shards/I/ (default: the scheduler's job id)")
	load.add(0, "start-at", timeValue{&cfg.StartAt}, "start the profiling schedule at `RFC3339` time, so that shards line up")
	load.add(0, "shard-barrier", boolean(&cfg.ShardBarrier), "start the profiling schedule when every shard is ready (ready objects in the store)")
	load.add(0, "shard-barrier-timeout", secondsValue{d: &cfg.ShardBarrierTimeout}, "fail when not every shard is ready within `SECONDS`")
	load.add(0, "num-profile-runs", integer(&cfg.NumProfileRuns), "run the benchmark `N` times (1-10) and report confidence intervals across runs")
	load.add(0, "confidence-level", num(&cfg.ConfidenceLevel), "confidence `LEVEL` of the multi-run intervals (0-1)")
	load.add(0, "profile-run-cooldown-seconds", secondsValue{d: &cfg.ProfileRunCooldown}, "pause `SECONDS` between profile runs")
	load.add(0, "profile-run-disable-warmup-after-first", boolean(&cfg.ProfileRunDisableWarmupAfterFirst), "warm up before the first profile run only")
	load.add(0, "set-consistent-seed", boolean(&cfg.SetConsistentSeed), "use seed 42 for every profile run when --random-seed is not given")

	good.add('g', "goodput", spacedList{&cfg.Goodput, new(bool)}, "SLOs as `tag:value ...`, e.g. 'time_to_first_token:250 inter_token_latency:10' (or several values: -g time_to_first_token:250 inter_token_latency:10)")
	good.add(0, "threshold", listValue{p: &cfg.Thresholds, split: true}, "CI gate `TAG.STAT<N` on the run's summary, k6-style: 'time_to_first_token.p99<300', 'request_throughput.avg>50', 'error_request_count<1'; stats avg (default), min, max, std, p1, p5, p10, p25, p50, p75, p90, p95, p99; comparators < <= > >= == !=; N in the metric's display unit (ms for latencies); repeatable or comma-separated (AIPERF_THRESHOLD); a failed gate exits 3 and the verdict is stored as verdict.json")

	out.add(0, "artifact-dir", str(&cfg.ArtifactDir), "`DIR` or store URL for the artifacts (file://, s3://, gs://, azblob://, mem://)")
	out.add(0, "label", listValue{p: &cfg.Labels, split: true}, "tag the run with `KEY=VALUE` (repeatable or comma-separated), stored in its manifest for aiperf-report to group and filter by")
	out.add(0, "profile-export-prefix", str(&cfg.ProfileExportPrefix), "rename the export files to `PREFIX`.csv, PREFIX.json, PREFIX.jsonl", "profile-export-file")
	out.add(0, "export-level", str(&cfg.ExportLevel), "`LEVEL`: summary, records or raw")
	out.add(0, "output-schema", str(&cfg.OutputSchema), "artifact file layout `VERSION`: 1.0 (AIPerf 0.8's, byte for byte) or 1.4 (AIPerf 0.13's: count and sum on distributions, run_info, is_complete, 0.13's input_config, records without \"error\" on success and with phase fields, 0.13's error types; see docs/metrics.md)")
	out.add(0, "slice-duration", secondsValue{d: &cfg.SliceDuration}, "also report metrics per window of `SECONDS` (timeslices JSON and CSV)")
	out.add(0, "export-http-trace", boolean(&cfg.ExportHTTPTrace), "write every request's HTTP trace timings")
	out.add(0, "show-trace-timing", boolean(&cfg.ShowTraceTiming), "print the HTTP trace timing table (connection, sending, waiting, receiving)")
	out.add(0, "segment-interval", secondsValue{d: &cfg.SegmentInterval}, "store the records received so far at least every `SECONDS`")
	out.add(0, "segment-records", integer(&cfg.SegmentRecords), "... or every `N` records")
	out.add(0, "spool-dir", str(&cfg.SpoolDir), "local `DIR` for records the store has not taken yet (default: the system temp dir)")
	out.add(0, "upload-grace-period", secondsValue{d: &cfg.UploadGrace}, "`SECONDS` to keep retrying uploads after the run before giving up")
	out.add(0, "shutdown-grace", secondsValue{d: &cfg.ShutdownGrace}, "after SIGINT/SIGTERM, store for at most `SECONDS` more, then leave the rest in the spool and exit (130/143)")

	var smSet, gpuSet, fmtSet, dcgmSet bool
	sm.add(0, "server-metrics", itemList{&cfg.ServerMetrics, &smSet}, "more Prometheus `URL`s to scrape beside the --url base + /metrics (on by default; http:// and /metrics are added when missing)")
	sm.add(0, "no-server-metrics", boolean(&cfg.NoServerMetrics), "do not scrape server metrics")
	sm.add(0, "server-metrics-formats", itemList{&cfg.ServerMetricsFormats, &fmtSet}, "server metrics `FORMATS` to write: json, csv, jsonl")
	sm.add(0, "server-metrics-collection-interval", secondsValue{d: &cfg.ServerMetricsInterval}, "scrape the server metrics every `SECONDS`")
	gpu.add(0, "gpu-telemetry", itemList{&cfg.GPUTelemetry, &gpuSet}, "show the GPU telemetry tables; `ITEMS`: DCGM exporter URLs beside localhost:9400 and :9401, or nvml (pynvml) for the local GPUs")
	gpu.add(0, "no-gpu-telemetry", boolean(&cfg.NoGPUTelemetry), "do not collect GPU telemetry")
	gpu.add(0, "gpu-collection-interval", secondsValue{d: &cfg.GPUInterval}, "collect GPU telemetry every `SECONDS`")
	gpu.add(0, "gpu-default-dcgm-endpoints", itemList{&cfg.DCGMEndpoints, &dcgmSet}, "the DCGM exporter `URLS` always tried (comma-separated)")

	ui.add(0, "ui-type", str(&cfg.UIType), "`TYPE`: none, simple or dashboard (default: simple on a terminal, else none)", "ui")
	ui.add(0, "log-level", str(&cfg.LogLevel), "`LEVEL`: TRACE, DEBUG, INFO, NOTICE, WARNING, SUCCESS, ERROR or CRITICAL")
	ui.add('v', "verbose", countBool{verbose}, "debug logging (-vv: trace)")
	ui.add(0, "config", str(configFile), "YAML `FILE` of flag values (flags and AIPERF_* env vars win over it)")
	addCompatGroup(ep.fs, ui.fs, cfg, verbose)
	return ep.fs
}

// newProfileCommand is `aiperf profile`.
func newProfileCommand(args []string, stdout, stderr io.Writer) *ff.Command {
	cfg := runner.Defaults()
	var verbose int
	var configFile string
	fs := profileFlags(&cfg, &verbose, &configFile)
	cmd := &ff.Command{
		Name:      "profile",
		Usage:     "aiperf profile --model MODEL [--url URL] [--streaming] [flags]",
		ShortHelp: "benchmark an OpenAI-compatible endpoint",
		Flags:     fs,
	}
	cmd.Exec = func(ctx context.Context, rest []string) error {
		if err := finishProfileConfig(&cfg, fs, verbose, rest, args); err != nil {
			return err
		}
		printCompatWarnings(stderr, &cfg, fs, args)
		return runProfile(ctx, &cfg, stdout, stderr)
	}
	return cmd
}

// finishProfileConfig completes cfg after parsing (which flags were set,
// verbosity, the redacted command line) and validates it. Every problem is a
// *usageError.
func finishProfileConfig(cfg *runner.Config, fs *ff.FlagSet, verbose int, rest, args []string) error {
	rest = withoutPassthrough(rest, args)
	if len(rest) > 0 {
		return command.Usage(errUnexpectedArgs(rest))
	}
	set := map[string]bool{}
	_ = fs.WalkFlags(func(f ff.Flag) error {
		if name, ok := f.GetLongName(); ok && f.IsSet() {
			set[name] = true
		}
		return nil
	})
	cfg.GracePeriodSet = set["benchmark-grace-period"]
	cfg.WarmupGracePeriodSet = set["warmup-grace-period"]
	cfg.NumDatasetEntriesSet = set["num-dataset-entries"]
	cfg.FlagsSet = slices.Sorted(maps.Keys(set))
	cfg.ArtifactDirSet = set["artifact-dir"]
	cfg.LogLevelSet = set["log-level"] || verbose > 0
	if verbose > 0 {
		cfg.Verbose = true
		cfg.LogLevel = "DEBUG"
		if verbose > 1 {
			cfg.LogLevel = "TRACE"
		}
	}
	cfg.LogLevel = strings.ToUpper(cfg.LogLevel)
	cfg.CLICommand = runner.ShellQuote(append([]string{"aiperf"}, secret.Args(args)...))
	cfg.NormalizeChoices()
	cfg.ApplyServiceKind()
	if err := applyCompat(cfg, fs, set); err != nil {
		return command.Usage(err)
	}
	if err := shardEnvFromProcess(cfg, set); err != nil {
		return command.Usage(err)
	}
	if err := cfg.Validate(); err != nil {
		return command.Usage(err)
	}
	return nil
}
