// Package endpoint describes the endpoint types a run can target (OpenAI
// chat, completions and embeddings, NIM embeddings, and the NIM, HF TEI and
// Cohere rankings APIs): their metadata, the exact JSON body sent for a turn
// of a conversation, and the parsing of each response (an SSE data payload or
// a whole body) into a record.Response.
package endpoint

import (
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
	// Title is the console table title.
	Title string
	// SupportsStreaming is false when --streaming must be silently turned off.
	SupportsStreaming bool
	// ProducesTokens reports whether responses carry generated text, so
	// output token and latency-per-token metrics apply.
	ProducesTokens bool
	// TokenizesInput reports whether the input sequence length is computed.
	TokenizesInput bool

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
		SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true},
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
