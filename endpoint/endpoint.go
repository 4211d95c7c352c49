// Package endpoint describes the endpoint types a run can target (OpenAI
// chat, completions and embeddings, NIM embeddings, the NIM, HF TEI and
// Cohere rankings APIs, and the types registered by their own files, such
// as TGI's huggingface_generate, OpenAI's responses and Anthropic's
// messages): their metadata, the exact JSON body sent for a turn of a
// conversation, and the parsing of each response (an SSE data payload or a
// whole body) into a record.Response.
package endpoint

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/record"
)

// Endpoint is one endpoint type and its metadata.
type Endpoint struct {
	// Name is the canonical --endpoint-type value ("chat", "nim_rankings",
	// …; see Names).
	Name string
	// Path is the default URL path, used when no custom endpoint is given.
	Path string
	// StreamPath, when not empty, replaces Path for streaming requests
	// (TGI's /generate_stream); see URLPath. Either may hold "{model}".
	StreamPath string
	// Title is the console table title.
	Title string
	// SupportsStreaming is false when --streaming must be silently turned off.
	SupportsStreaming bool
	// ProducesTokens reports whether responses carry generated text, so
	// output token and latency-per-token metrics apply.
	ProducesTokens bool
	// TokenizesInput reports whether the input sequence length is computed.
	TokenizesInput bool
	// ProducesImages reports generated images (image_generation); AIPerf's
	// image metrics follow image input, not this.
	ProducesImages bool
	// ProducesVideo reports generated video, so the video_* metrics apply.
	ProducesVideo bool
	// Polls reports an asynchronous job: the POST gives a job whose status
	// is polled until it ends (video_generation; see runner's poller).
	Polls bool
	// SendsContext reports that the body carries the conversation's system
	// prompt and user context (the chat-shaped types); other types send
	// the turn alone.
	SendsContext bool

	// codec builds and parses a type registered by Register; nil for the
	// OpenAI-shaped types built in (payload.go, parse.go).
	codec Codec
}

// Codec is what a registered endpoint type (Register) does differently from
// the built-in OpenAI shapes. Its methods must be safe for concurrent use.
type Codec interface {
	// Members appends the type's body members for turn t (its Lazy text
	// already produced, t.Payload nil), in the order they are sent;
	// --extra-inputs and the turn's Extra are merged in afterwards.
	// streaming is true when the run streams and the type supports it.
	Members(members []Member, t *dataset.Turn, c *Context, streaming bool) ([]Member, error)
	// Parse parses one stream message's data (streaming) or a whole body,
	// already checked to be JSON, as Endpoint.Parse documents.
	Parse(v *fastjson.Value) (resp record.Response, ok bool, err error)
	// Authorize sets the headers that carry the API key (key may be
	// empty) and any the protocol requires on every request.
	Authorize(h http.Header, key string)
}

// streamCodec is implemented by a Codec whose parse of a stream message
// depends on the stream's earlier messages (see Endpoint.ParseStream).
type streamCodec interface {
	ParseStream(v *fastjson.Value, st *Stream) (resp record.Response, ok bool, err error)
}

// Stream is the parse state of one SSE stream, for ParseStream. The zero
// value is ready for a new stream; a Stream must not be copied after use
// or shared between streams.
type Stream struct {
	parts []streamPart
	buf   [4]streamPart
}

// streamPart names one output part of a stream (a Responses API
// output_index and content_index; -1 when absent).
type streamPart struct{ output, content int64 }

// seen reports whether p was marked.
func (st *Stream) seen(p streamPart) bool {
	for _, q := range st.parts {
		if q == p {
			return true
		}
	}
	return false
}

// mark records p.
func (st *Stream) mark(p streamPart) {
	if st.seen(p) {
		return
	}
	if st.parts == nil {
		st.parts = st.buf[:0]
	}
	st.parts = append(st.parts, p)
}

// URLPath returns the default URL path of a request to model: StreamPath
// when streaming and the type has one, else Path, with a "{model}" in it
// replaced by the model name escaped as a path segment (Triton's
// /v2/models/{model}/infer).
func (e *Endpoint) URLPath(model string, streaming bool) string {
	if streaming && e.StreamPath != "" {
		return expandModel(e.StreamPath, model)
	}
	return expandModel(e.Path, model)
}

// ParseStream parses one SSE data payload of the stream whose state is st,
// as Parse does; types whose messages depend on earlier ones (the Responses
// API's output_text.done, which repeats its part's deltas) use st. Use one
// Stream per response stream.
//
// The common chat and completions chunk is read by parseFlat, whose stack
// frames are a few hundred bytes where fastjson's recursion takes ~2.5 KB:
// a stream's goroutine then stays in a 4 KiB stack (issue 19).
func (e *Endpoint) ParseStream(st *Stream, data []byte) (resp record.Response, ok bool, err error) {
	if sc, isStream := e.codec.(streamCodec); isStream {
		return parseStreamCodec(sc, st, data)
	}
	if resp, ok, done := e.parseFlat(data); done {
		return resp, ok, nil
	}
	return e.Parse(data)
}

// parseStreamCodec parses data with a stream codec, in a frame of its own.
//
//go:noinline
func parseStreamCodec(sc streamCodec, st *Stream, data []byte) (resp record.Response, ok bool, err error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "[DONE]" {
		return resp, false, nil
	}
	p := parsers.Get()
	defer parsers.Put(p)
	v, err := p.ParseBytes(data)
	if err != nil {
		return resp, false, fmt.Errorf("endpoint: parse response: %w", err)
	}
	return sc.ParseStream(v, st)
}

// Register adds an endpoint type built and parsed by its codec, after the
// built-in ones: Names lists types in the order they were registered. It
// is meant for init functions and panics on a name already taken.
func Register(e Endpoint, c Codec) {
	for i := range endpoints {
		if endpoints[i].Name == e.Name {
			panic("endpoint: type registered twice: " + e.Name)
		}
	}
	e.codec = c
	endpoints = append(endpoints, e)
}

// Authorize sets the API key header (and any header the protocol needs) in
// h: "Authorization: Bearer <key>" for the OpenAI-shaped types, when key
// is not empty; a registered type's codec decides for its own.
func (e *Endpoint) Authorize(h http.Header, key string) {
	if e.codec != nil {
		e.codec.Authorize(h, key)
		return
	}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}

// The endpoint types, in the order Names lists them.
var endpoints = []Endpoint{
	{Name: "chat", Path: "/v1/chat/completions", Title: "LLM Metrics",
		SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true, SendsContext: true},
	{Name: "completions", Path: "/v1/completions", Title: "LLM Metrics",
		SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true},
	{Name: "embeddings", Path: "/v1/embeddings", Title: "Embeddings Metrics",
		SupportsStreaming: false, ProducesTokens: false, TokenizesInput: true},
	{Name: "nim_embeddings", Path: "/v1/embeddings", Title: "NIM Embeddings Metrics",
		SupportsStreaming: false, ProducesTokens: false, TokenizesInput: true},
	// Rankings tokenize their query and passages for the input sequence
	// length (§2.2), as AIPerf's endpoint metadata says; they produce no
	// tokens, so only latency, throughput and ISL metrics apply.
	{Name: "nim_rankings", Path: "/v1/ranking", Title: "Rankings Metrics",
		SupportsStreaming: false, ProducesTokens: false, TokenizesInput: true},
	{Name: "hf_tei_rankings", Path: "/rerank", Title: "Ranking Metrics",
		SupportsStreaming: false, ProducesTokens: false, TokenizesInput: true},
	{Name: "cohere_rankings", Path: "/v2/rerank", Title: "Ranking Metrics",
		SupportsStreaming: false, ProducesTokens: false, TokenizesInput: true},
}

// aliases maps the older names AIPerf still accepts to canonical ones.
var aliases = map[string]string{"rankings": "nim_rankings"}

// Lookup returns a new copy of the endpoint type called name (case and
// surrounding space ignored; the alias "rankings" gives nim_rankings). For
// an unknown name it returns an error that lists the valid names.
func Lookup(name string) (*Endpoint, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	if canonical, ok := aliases[key]; ok {
		key = canonical
	}
	for i := range endpoints {
		if endpoints[i].Name == key {
			e := endpoints[i]
			return &e, nil
		}
	}
	return nil, fmt.Errorf("endpoint: unknown type %q (valid: %s)", name, strings.Join(Names(), ", "))
}

// Names returns the canonical endpoint type names in a fixed order (chat,
// completions, embeddings, nim_embeddings, nim_rankings, hf_tei_rankings,
// cohere_rankings, then the registered types in registration order),
// aliases excluded. The slice is new on every call.
func Names() []string {
	names := make([]string, len(endpoints))
	for i := range endpoints {
		names[i] = endpoints[i].Name
	}
	return names
}

// rankings reports whether e is one of the rankings types.
func (e *Endpoint) rankings() bool {
	switch e.Name {
	case "nim_rankings", "hf_tei_rankings", "cohere_rankings":
		return true
	}
	return false
}
