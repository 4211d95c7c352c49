// Package endpoint describes the OpenAI-compatible endpoint types a run can
// target: their metadata, the exact JSON body sent for a turn, and the parsing
// of each response (an SSE data payload or a whole body) into a
// record.Response.
package endpoint

import (
	"fmt"
	"strings"
)

// Endpoint is one endpoint type and its metadata.
type Endpoint struct {
	// Name is the --endpoint-type value ("chat", "completions", "embeddings").
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
}

// Lookup returns a new copy of the endpoint type called name (case and
// surrounding space ignored). For an unknown name it returns an error that
// lists the valid names.
func Lookup(name string) (*Endpoint, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	for i := range endpoints {
		if endpoints[i].Name == key {
			e := endpoints[i]
			return &e, nil
		}
	}
	return nil, fmt.Errorf("endpoint: unknown type %q (valid: %s)", name, strings.Join(Names(), ", "))
}

// Names returns the valid endpoint type names in a fixed order.
func Names() []string {
	names := make([]string, len(endpoints))
	for i := range endpoints {
		names[i] = endpoints[i].Name
	}
	return names
}
