// Package endpoint describes the endpoint types a run can target (OpenAI
// chat, completions and embeddings, NIM embeddings, and the NIM, HF TEI and
// Cohere rankings APIs): their metadata, the exact JSON body sent for a turn
// of a conversation, and the parsing of each response (an SSE data payload or
// a whole body) into a record.Response.
package endpoint

import (
	"fmt"
	"strings"
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
// cohere_rankings), aliases excluded. The slice is new on every call.
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
