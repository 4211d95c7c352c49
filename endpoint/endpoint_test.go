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
			SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true}},
		{" Completions ", Endpoint{Name: "completions", Path: "/v1/completions", Title: "LLM Metrics",
			SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true}},
		{"embeddings", Endpoint{Name: "embeddings", Path: "/v1/embeddings", Title: "Embeddings Metrics",
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
	e, err := Lookup("rankings")
	if e != nil || err == nil {
		t.Fatalf("Lookup = %v, %v; want an error", e, err)
	}
	for _, want := range []string{`"rankings"`, "chat, completions, embeddings"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestNames(t *testing.T) {
	if got := Names(); !slices.Equal(got, []string{"chat", "completions", "embeddings"}) {
		t.Errorf("Names() = %v", got)
	}
}
