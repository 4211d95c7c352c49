// Package record defines the raw per-request record that the runner produces
// and the metrics package consumes: identity, monotonic timestamps, the parsed
// responses in arrival order, and the error, if any.
//
// A failed request is a Record with Error set, never a Go error: the run goes on.
package record

// Phase is the credit phase a request belongs to.
type Phase string

// The phases of a run. Warmup records are excluded from every metric.
const (
	PhaseWarmup    Phase = "warmup"
	PhaseProfiling Phase = "profiling"
)

// Usage is the OpenAI `usage` object of a response. A nil field was absent.
type Usage struct {
	PromptTokens     *int64
	CompletionTokens *int64
	TotalTokens      *int64
	// ReasoningTokens is completion_tokens_details.reasoning_tokens.
	ReasoningTokens *int64
	// CachedTokens is prompt_tokens_details.cached_tokens.
	CachedTokens *int64
}

// Response is one parsed response: an SSE message or a whole non-streaming
// body. Messages that carry no data (empty, role-only, [DONE]) never become a
// Response; a message that carries only usage does, with no content.
//
// A stream holds one Response per message until its record is processed,
// so what only some endpoint types return is behind Output: a text
// response is 56 bytes, not 80 (10,000 streams of 20 tokens: 6 MB less,
// issue 19).
type Response struct {
	// PerfNS is the monotonic time (ns since the run's Clock origin) at which
	// the first byte of this message was read (streaming), or at which the
	// body finished reading (non-streaming).
	PerfNS int64
	// Text is the output content of the message.
	Text string
	// Reasoning is reasoning_content (or reasoning) of the message.
	Reasoning string
	// Usage is the message's usage object, or nil.
	Usage *Usage
	// Output is what the message returned other than text (embeddings,
	// images, a video job), or nil; Out allocates it.
	Output *Output
}

// Output is what an embeddings, image or video generation message returned.
type Output struct {
	// Embeddings is the number of embedding vectors in the message.
	Embeddings int
	// Images is the number of generated images in the message
	// (image_generation: one per stream event, len(data) for a body).
	Images int
	// Media marks an image or video generation message, which counts as
	// content even when it carries no image: AIPerf counts every non-empty
	// object of those types.
	Media bool
	// Video is the job object of a video_generation message, or nil.
	Video *Video
}

// Out returns r's Output, allocating it at the first call: parsers set
// its fields through it.
func (r *Response) Out() *Output {
	if r.Output == nil {
		r.Output = &Output{}
	}
	return r.Output
}

// Embeddings is the number of embedding vectors in the message (0 without
// an Output).
func (r *Response) Embeddings() int {
	if r.Output == nil {
		return 0
	}
	return r.Output.Embeddings
}

// Images is the number of generated images in the message (0 without an
// Output).
func (r *Response) Images() int {
	if r.Output == nil {
		return 0
	}
	return r.Output.Images
}

// Media reports an image or video generation message (see Output.Media).
func (r *Response) Media() bool { return r.Output != nil && r.Output.Media }

// Video is the job object of a video_generation message, or nil.
func (r *Response) Video() *Video {
	if r.Output == nil {
		return nil
	}
	return r.Output.Video
}

// HasContent reports whether the response carries data that counts for the
// timing metrics (text, reasoning or embeddings), as opposed to usage only.
func (r *Response) HasContent() bool {
	return r.Text != "" || r.Reasoning != "" || r.Embeddings() > 0 || r.Media()
}

// Error describes why a request failed. Code is the HTTP status, or 0 when the
// failure was not an HTTP status (transport error, timeout, parse error).
type Error struct {
	Code    int
	Type    string
	Message string
}

// Record is everything measured about one request. All *NS fields except
// those named Wall are monotonic nanoseconds since the run's Clock origin;
// convert with Clock.Wall.
type Record struct {
	// RequestNum is the index of the request in the run (0-based, sends order).
	RequestNum int
	// SessionNum is the index of the conversation instance (equals RequestNum
	// for single-turn runs).
	SessionNum int
	// ConversationID is the dataset session id (the key into inputs.json).
	ConversationID string
	// TurnIndex is the 0-based turn within the conversation.
	TurnIndex int
	// XRequestID and XCorrelationID are the UUIDs sent as headers.
	XRequestID     string
	XCorrelationID string
	Phase          Phase
	WorkerID       string
	// Model is the model name sent in the payload.
	Model string
	// URLIndex is the index of the --url the request was sent to (0 with
	// one URL); every turn of a session has its first turn's.
	URLIndex int

	// CreditIssuedNS is the intended send time from the schedule.
	CreditIssuedNS int64
	// StartNS is taken immediately before the request is written.
	StartNS int64
	// AckNS is when the headers of a successful response arrived, else 0.
	AckNS int64
	// EndNS is the time of the last response, or of the error.
	EndNS int64

	// Streaming reports whether the response was read as an SSE stream.
	Streaming bool
	// Responses holds the parsed responses in arrival order.
	Responses []Response
	// Error is nil for a successful request.
	Error *Error

	// InputTokens is the client-side input sequence length of the payload's
	// texts, or -1 when unknown.
	InputTokens int
	// InputText, when not empty, is the text whose count replaces
	// InputTokens before the record's metrics are computed: a later turn's
	// whole conversation (see runner's finishTurn), counted off the send
	// path.
	InputText string
	// RequestedOutputTokens is the max tokens value sent, or 0 when none.
	RequestedOutputTokens int

	// Cancelled reports a client-side cancellation; CancelledNS is its time.
	Cancelled   bool
	CancelledNS int64

	// Polls is the number of status requests (GET) of an asynchronous
	// job (video_generation), 0 for other types.
	Polls int

	// HTTPTrace is the request's transport-level timeline, or nil when
	// HTTP tracing is off or the request never reached the transport.
	HTTPTrace *HTTPTrace
}

// Valid reports whether the record counts for the normal metrics: no error,
// at least one response, every response timestamp positive.
func (r *Record) Valid() bool {
	if r.Error != nil || len(r.Responses) == 0 {
		return false
	}
	for i := range r.Responses {
		if r.Responses[i].PerfNS <= 0 {
			return false
		}
	}
	return true
}
