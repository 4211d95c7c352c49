package endpoint

import (
	"slices"
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		name string
		want Endpoint
	}{
		{"chat", Endpoint{Name: "chat", Path: "/v1/chat/completions", Title: "LLM Metrics",
			SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true, SendsContext: true}},
		{" Completions ", Endpoint{Name: "completions", Path: "/v1/completions", Title: "LLM Metrics",
			SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true}},
		{"embeddings", Endpoint{Name: "embeddings", Path: "/v1/embeddings", Title: "Embeddings Metrics",
			SupportsStreaming: false, ProducesTokens: false, TokenizesInput: true}},
		{"nim_embeddings", Endpoint{Name: "nim_embeddings", Path: "/v1/embeddings", Title: "NIM Embeddings Metrics",
			SupportsStreaming: false, ProducesTokens: false, TokenizesInput: true}},
		{"nim_rankings", Endpoint{Name: "nim_rankings", Path: "/v1/ranking", Title: "Rankings Metrics",
			SupportsStreaming: false, ProducesTokens: false, TokenizesInput: true}},
		{"Rankings", Endpoint{Name: "nim_rankings", Path: "/v1/ranking", Title: "Rankings Metrics",
			SupportsStreaming: false, ProducesTokens: false, TokenizesInput: true}},
		{"hf_tei_rankings", Endpoint{Name: "hf_tei_rankings", Path: "/rerank", Title: "Ranking Metrics",
			SupportsStreaming: false, ProducesTokens: false, TokenizesInput: true}},
		{"cohere_rankings", Endpoint{Name: "cohere_rankings", Path: "/v2/rerank", Title: "Ranking Metrics",
			SupportsStreaming: false, ProducesTokens: false, TokenizesInput: true}},
	}
	for _, tc := range tests {
		got, err := Lookup(tc.name)
		if err != nil || *got != tc.want {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}

func TestLookupCopies(t *testing.T) {
	a, _ := Lookup("chat")
	a.Path = "/changed"
	if b, _ := Lookup("chat"); b.Path != "/v1/chat/completions" {
		t.Errorf("Lookup shares state: %q", b.Path)
	}
}

func TestLookupUnknown(t *testing.T) {
	e, err := Lookup("reranker")
	if e != nil || err == nil {
		t.Fatalf("Lookup = %v, %v; want an error", e, err)
	}
	for _, want := range []string{`"reranker"`, "chat, completions, embeddings, nim_embeddings, nim_rankings, hf_tei_rankings, cohere_rankings"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestNames(t *testing.T) {
	want := []string{"chat", "completions", "embeddings", "nim_embeddings", "nim_rankings", "hf_tei_rankings", "cohere_rankings"}
	// The built-in types come first; registered ones follow (in the order
	// of their files' init functions).
	got := Names()
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Errorf("Names() = %v", got)
	}
	for _, name := range []string{"huggingface_generate", "responses", "messages"} {
		if !slices.Contains(got[len(want):], name) {
			t.Errorf("Names() = %v, want %s registered", got, name)
		}
	}
}
