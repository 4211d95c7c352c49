// Package runner executes one benchmark: it builds the dataset, schedules
// requests open- or closed-loop, measures every request on one monotonic
// clock, and turns the records into AIPerf's metrics and artifacts.
package runner

import (
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/telemetry"
)

// Config is the effective configuration of one benchmark. Zero values mean
// "not set" where the reference has no default; Defaults fills the rest.
type Config struct {
	// Endpoint.
	Models                 []string
	ModelSelectionStrategy string // round_robin | random
	URL                    string
	EndpointPath           string // custom path; "" = the endpoint type's
	EndpointType           string // chat | completions | embeddings
	EndpointTemplate       string // template type: Jinja2 body, named, file or inline (endpoint.TemplateConfig)
	EndpointResponseField  string // template type: JMESPath into the response; "" = auto-detect
	ServiceKind            string // GenAI-Perf's --service-kind: triton | openai; "" = unset (see ApplyServiceKind)
	Backend                string // GenAI-Perf's --backend of kserve: tensorrtllm ("" = it) | vllm
	Streaming              bool
	RequestTimeout         time.Duration
	APIKey                 string   // secret: never stored or logged
	Headers                []string // "Name:Value"
	ExtraInputs            []string // "key:value" or a JSON object
	UseLegacyMaxTokens     bool
	UseServerTokenCount    bool
	// DownloadVideoContent reads each completed video job's content
	// (--download-video-content); VideoPollInterval is the wait between
	// polls of a job (--http.video-poll-interval, AIPerf's
	// AIPERF_HTTP_VIDEO_POLL_INTERVAL); 0 means DefaultVideoPollInterval.
	DownloadVideoContent bool
	VideoPollInterval    time.Duration

	// URLs are every --url base in the order given when there are several
	// (requests go round robin, every turn of a session to its first
	// turn's URL); nil means URL alone, which is always URLs[0]. See
	// BaseURLs.
	URLs        []string
	URLStrategy string // --url-strategy: round_robin (AIPerf's only one)
	// Insecure skips TLS certificate verification (--insecure; AIPerf:
	// AIPERF_HTTP_SSL_VERIFY=false). CACert is a PEM file of CA
	// certificates trusted beside the system's (SSL_CERT_FILE also works).
	Insecure bool
	CACert   string
	// AWSService signs every request with SigV4 for an AWS service
	// (--aws-service sagemaker or bedrock; the bedrock_* endpoint types
	// imply bedrock) with credentials from the SDK's default chain, and
	// reads its event streams; AWSRegion (--aws-region) overrides the
	// chain's region. Without --url the run goes to the regional endpoint.
	// See aws.go.
	AWSService string
	AWSRegion  string
	// Labels are "key=value" tags stored in the manifest (--label), e.g.
	// gpu=h100; aiperf-report groups and filters runs by them.
	Labels []string

	// Input.
	ISLMean, ISLStddev float64
	OSLMean, OSLStddev float64 // OSLMean 0: no max tokens in the payload
	NumDatasetEntries  int
	// NumDatasetEntriesSet reports that --num-dataset-entries was given.
	NumDatasetEntriesSet bool
	// FlagsSet names the flags given explicitly (long names, no dashes),
	// for the rules that depend on whether an option was used at all.
	FlagsSet        []string
	RandomSeed      uint64
	RandomSeedSet   bool
	Tokenizer       string
	PromptBatchSize int
	// TokenizerRevision and TokenizerTrustRemoteCode are the Hugging Face
	// options of --tokenizer (no remote code is ever run).
	TokenizerRevision        string
	TokenizerTrustRemoteCode bool

	// Dataset source (§4.1): synthetic unless InputFile or PublicDataset.
	InputFile         string
	CustomDatasetType string // "" = detect
	PublicDataset     string // sharegpt
	// DatasetSampling is sequential | random | shuffle; "" = the source's.
	DatasetSampling string
	// NumSessions is --num-sessions/--num-conversations: a stop condition
	// (sessions to start), and the pool size of random_pool.
	NumSessions  int
	ISLBlockSize int // hash block size of traces; 0 = the format's
	// Trace options (§4.2).
	SynthesisMaxISL, SynthesisMaxOSL int
	IgnoreTraceDelays                bool
	// Trace synthesis (§7.2): 1 leaves the trace as it is.
	SynthesisSpeedupRatio, SynthesisPrefixLenMultiplier        float64
	SynthesisPromptLenMultiplier, SynthesisOutputLenMultiplier float64
	SynthesisPrefixRootMultiplier                              int

	// Synthetic extras (§4.4).
	SeqDist                              string
	NumPrefixPrompts, PrefixPromptLength int
	SharedSystemPromptLength             int
	// SystemPrompt (--system-prompt) or SystemPromptFile (the file's text,
	// --system-prompt-file) is prepended, verbatim, to every conversation's
	// system message.
	SystemPrompt, SystemPromptFile                         string
	UserContextPromptLength                                int
	SessionTurnsMean, SessionTurnsStddev                   float64
	SessionTurnDelayMean, SessionTurnDelayStddev           float64 // ms
	SessionDelayRatio                                      float64
	RankingsPassagesMean, RankingsPassagesStddev           float64
	RankingsPassageTokensMean, RankingsPassageTokensStddev float64
	RankingsQueryTokensMean, RankingsQueryTokensStddev     float64

	// Synthetic multimodal inputs (§4.5).
	ImageWidthMean, ImageWidthStddev   float64
	ImageHeightMean, ImageHeightStddev float64
	ImageFormat                        string // png | jpeg | random
	ImageBatchSize                     int
	AudioLengthMean, AudioLengthStddev float64   // seconds
	AudioFormat                        string    // wav | mp3
	AudioSampleRates                   []float64 // kHz
	AudioDepths                        []int
	AudioNumChannels                   int
	AudioBatchSize                     int
	VideoWidth, VideoHeight            int
	VideoFPS, VideoDuration            float64
	VideoSynthType, VideoCodec         string
	VideoFormat                        string
	VideoAudioNumChannels              int
	VideoBatchSize                     int

	// Load.
	Concurrency       int     // 0: unset
	RequestRate       float64 // 0: unset (concurrency mode)
	ArrivalPattern    string  // constant | poisson | gamma; "" = poisson
	ArrivalSmoothness float64 // 0: unset (1.0 for gamma)
	RequestCount      int     // 0: unset
	BenchmarkDuration time.Duration
	// GracePeriod applies to duration runs; negative means infinite.
	GracePeriod        time.Duration
	GracePeriodSet     bool
	WarmupRequestCount int

	// Warmup (§5.6): a phase before profiling, by count, duration or
	// sessions, with its own load settings (0 / "" = the profiling value).
	WarmupDuration               time.Duration
	NumWarmupSessions            int
	WarmupConcurrency            int
	WarmupPrefillConcurrency     int
	WarmupRequestRate            float64
	WarmupArrivalPattern         string
	WarmupGracePeriod            time.Duration // < 0: infinite (the default)
	WarmupGracePeriodSet         bool
	WarmupConcurrencyRamp        time.Duration
	WarmupRequestRateRamp        time.Duration
	WarmupPrefillConcurrencyRamp time.Duration

	// User-centric rate (§5.5): NumUsers users sharing UserCentricRate
	// requests/s, each sending a turn every NumUsers/UserCentricRate s.
	UserCentricRate float64
	NumUsers        int

	// Prefill concurrency (§5.2): requests between send and first token.
	PrefillConcurrency int
	// Ramps (§5.2): the limit or rate rises to its target over the duration.
	ConcurrencyRamp        time.Duration
	PrefillConcurrencyRamp time.Duration
	RequestRateRamp        time.Duration

	// Request cancellation (§5.7): this percent of requests is cancelled
	// RequestCancellationDelay after it was sent.
	RequestCancellationRate  float64
	RequestCancellationDelay time.Duration

	// ConnectionReuse is pooled | never | sticky-user-sessions.
	ConnectionReuse string

	// LatenessThreshold marks the run degraded when the schedule lateness
	// p99 exceeds it (open-loop modes).
	LatenessThreshold time.Duration

	// FailureWindow ends the run as failed when no request has succeeded
	// for this long since one failed: the target is down (see
	// failureWindow). 0 turns it off.
	FailureWindow time.Duration

	// Fixed-schedule replay (§5.4): FixedSchedule, or a timestamped trace.
	FixedSchedule               bool
	FixedScheduleAutoOffset     bool
	FixedScheduleStartOffset    float64 // ms
	FixedScheduleStartOffsetSet bool
	FixedScheduleEndOffset      float64 // ms
	FixedScheduleEndOffsetSet   bool

	// Goodput is the --goodput SLO spec, "tag:value ...".
	Goodput string
	// Thresholds are the --threshold CI gates, "TAG.STAT OP NUMBER" (see
	// package verdict): judged against the summary at the end of the run.
	Thresholds []string

	// HTTP trace metrics (§2.3): --show-trace-timing prints their table,
	// --export-http-trace writes every request's trace.
	ShowTraceTiming bool
	ExportHTTPTrace bool
	// SliceDuration cuts the run into windows with their own metrics
	// (--slice-duration, §3.5); 0: off.
	SliceDuration time.Duration
	// Stability is Perf Analyzer's stability mode (--measurement-interval,
	// --stability-percentage; see stability.go).
	Stability StabilityConfig

	// Multi-run confidence (§2.4, §5.8) and sweeps: NumProfileRuns runs of
	// the same benchmark (1..10) with a cooldown between them; a
	// --concurrency or --request-rate list runs one benchmark per value.
	NumProfileRuns                    int
	ConfidenceLevel                   float64
	ProfileRunCooldown                time.Duration
	ProfileRunDisableWarmupAfterFirst bool
	SetConsistentSeed                 bool
	ConcurrencyList                   []int     // > 1 value: a sweep
	RequestRateList                   []float64 // > 1 value: a sweep
	// ISLList, OSLList, NumDatasetEntriesList and PromptBatchSizeList sweep
	// --isl, --osl, --num-dataset-entries and --prompt-batch-size (> 1
	// value). SweepType combines several lists: "grid" or "" (every
	// combination) or "zip" (element-wise, equal lengths).
	ISLList               []int
	OSLList               []int
	NumDatasetEntriesList []int
	PromptBatchSizeList   []int
	SweepType             string
	// AnalyzeSweepType is set by `aiperf analyze`: GenAI-Perf's
	// --sweep-type (concurrency, request_rate, input_sequence_length,
	// num_dataset_entries or batch_size), which selects GenAI-Perf's
	// artifact layout and summary CSV; "" for profile.
	AnalyzeSweepType string

	// Output.
	ArtifactDir         string
	ArtifactDirSet      bool
	ProfileExportPrefix string
	ExportLevel         string // summary | records | raw
	// OutputSchema is the layout of the artifact files (--output-schema):
	// "1.4" (the default), AIPerf 0.13's, or "1.0", AIPerf 0.8's, byte for
	// byte.
	OutputSchema string

	// Storage of records while the run goes on (see docs/storage.md).
	SegmentInterval time.Duration // seal a record segment this often
	SegmentRecords  int           // ... or at this many records
	SpoolDir        string        // local spill space when the store is slow or down
	UploadGrace     time.Duration // how long to keep retrying uploads at the end
	// ShutdownGrace bounds the shutdown after a signal (the cancellation
	// of Run's ctx): the remaining stores end this long after it, the
	// upload wait included, so a stopped container exits in time.
	ShutdownGrace time.Duration

	// Sharding (see shard.go and docs/fleet.md): ShardCount processes run
	// one benchmark, each its deterministic share of the global plan,
	// writing runs/<RunGroup>/shards/<ShardIndex>/. ShardCount 0 means
	// not sharded. StartAt, or ShardBarrier through the store, gives the
	// shards a common start of their profiling schedule.
	ShardIndex, ShardCount int
	RunGroup               string
	StartAt                time.Time // zero: none
	ShardBarrier           bool
	ShardBarrierTimeout    time.Duration

	// Telemetry (see docs/telemetry.md). Server metrics are scraped from
	// the --url base + /metrics unless NoServerMetrics, plus ServerMetrics;
	// GPU telemetry from the default DCGM exporter endpoints plus the URLs
	// of GPUTelemetry, or from local GPUs with "nvml" (alias "pynvml").
	ServerMetrics         []string
	NoServerMetrics       bool
	ServerMetricsFormats  []string // json | csv | jsonl
	ServerMetricsInterval time.Duration
	GPUTelemetry          []string // URLs, "nvml"/"pynvml", "dashboard"
	NoGPUTelemetry        bool
	GPUInterval           time.Duration
	// DCGMEndpoints are the DCGM exporter endpoints always tried unless
	// NoGPUTelemetry or a local collector is chosen.
	DCGMEndpoints []string

	// UI.
	UIType   string // none | simple | dashboard
	LogLevel string
	// LogLevelSet reports that --log-level or -v was given: the console then
	// shows that level; otherwise it shows warnings and errors only (the log
	// file always has LogLevel).
	LogLevelSet bool
	Verbose     bool

	// CLICommand is the command line as given, secrets redacted.
	CLICommand string
}

// Defaults returns the configuration AIPerf would use with no flags.
func Defaults() Config {
	return Config{
		ModelSelectionStrategy:            "round_robin",
		URL:                               "localhost:8000",
		URLStrategy:                       "round_robin",
		EndpointType:                      "chat",
		RequestTimeout:                    21600 * time.Second,
		ISLMean:                           550,
		NumDatasetEntries:                 100,
		Tokenizer:                         "",
		PromptBatchSize:                   1,
		TokenizerRevision:                 "main",
		SessionTurnsMean:                  1,
		SessionDelayRatio:                 1,
		SynthesisSpeedupRatio:             1,
		SynthesisPrefixLenMultiplier:      1,
		SynthesisPromptLenMultiplier:      1,
		SynthesisOutputLenMultiplier:      1,
		SynthesisPrefixRootMultiplier:     1,
		RankingsPassagesMean:              1,
		RankingsPassageTokensMean:         550,
		RankingsQueryTokensMean:           550,
		ImageFormat:                       "png",
		ImageBatchSize:                    1,
		AudioFormat:                       "wav",
		AudioSampleRates:                  []float64{16},
		AudioDepths:                       []int{16},
		AudioNumChannels:                  1,
		AudioBatchSize:                    1,
		VideoFPS:                          4,
		VideoDuration:                     5,
		VideoSynthType:                    "moving_shapes",
		VideoCodec:                        "libvpx-vp9",
		VideoFormat:                       "webm",
		VideoBatchSize:                    1,
		ArrivalPattern:                    "poisson",
		GracePeriod:                       30 * time.Second,
		ArtifactDir:                       "artifacts",
		ExportLevel:                       "records",
		OutputSchema:                      "1.4",
		SegmentInterval:                   10 * time.Second,
		SegmentRecords:                    10000,
		UploadGrace:                       5 * time.Minute,
		ShutdownGrace:                     DefaultShutdownGrace,
		ShardBarrierTimeout:               DefaultShardBarrierTimeout,
		UIType:                            "",
		LogLevel:                          "INFO",
		NumProfileRuns:                    1,
		ConfidenceLevel:                   0.95,
		ProfileRunDisableWarmupAfterFirst: true,
		SetConsistentSeed:                 true,
		WarmupGracePeriod:                 -1,
		ConnectionReuse:                   "pooled",
		LatenessThreshold:                 10 * time.Millisecond,
		FailureWindow:                     DefaultFailureWindow,
		ServerMetricsFormats:              []string{"json", "csv"},
		ServerMetricsInterval:             100 * time.Millisecond,
		GPUInterval:                       telemetry.DefaultGPUInterval,
		DCGMEndpoints:                     telemetry.DefaultDCGMURLs(),
	}
}

// LabelMap returns Labels as a map; a key given twice keeps its last value.
// Entries without '=' are skipped (Validate rejects them).
func (c *Config) LabelMap() map[string]string {
	if len(c.Labels) == 0 {
		return nil
	}
	m := make(map[string]string, len(c.Labels))
	for _, l := range c.Labels {
		if k, v, ok := strings.Cut(l, "="); ok {
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return m
}
