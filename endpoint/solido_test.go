package endpoint

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
)

// TestSolidoGolden compares solido_rag bodies with testdata/solido
// (-update rewrites): key order, the fixed filters, no stream key, extra
// merged after.
func TestSolidoGolden(t *testing.T) {
	tests := []struct {
		golden string
		turn   dataset.Turn
		opts   *Options
	}{
		{"query", dataset.Turn{Texts: []string{"How do I run SDE?"}, Model: "llama"}, &Options{Streaming: true}},
		{"batch_escape", dataset.Turn{Texts: []string{"a", "", escText}, Model: "m", MaxTokens: 10}, nil},
		{"rankings_turn", dataset.Turn{Query: "q", Passages: []string{"p1", "p2"}, Model: "m"}, nil},
		{"extra", dataset.Turn{Texts: []string{"x"}, Model: "m", Extra: raw(`{"top_k":3}`)},
			&Options{Extra: []Field{field("filters", `{"family":"Other"}`), field("stream", "true")}}},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			got, err := mustLookup(t, "solido_rag").Payload(&tc.turn, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "solido", tc.golden+".json"), got)
		})
	}
}

// solidoParseCases are Solido response bodies or stream messages.
var solidoParseCases = []struct {
	name, data string
	text       string
	ok         bool
	err        string
}{
	{"content and sources", `{"content":"SDE is a tool","sources":[{"doc":"a.pdf","page":3}]}`, "SDE is a tool", true, ""},
	{"sources object", `{"content":"x","sources":{"a.pdf":[1,2]}}`, "x", true, ""},
	{"no sources", `{"content":" token"}`, " token", true, ""},
	{"empty content", `{"content":"","sources":[]}`, "", false, ""},
	{"no content", `{"sources":[{"doc":"a"}]}`, "", false, ""},
	{"content not string", `{"content":5}`, "", false, `field "content"`},
	{"array body", `["content"]`, "", false, "not an object"},
	{"server error", `{"error":"index unavailable"}`, "", false, "index unavailable"},
	{"malformed", `{"content":"x"`, "", false, "parse response"},
	{"done", `[DONE]`, "", false, ""},
}

// TestSolidoParse checks content extraction and errors.
func TestSolidoParse(t *testing.T) {
	e := mustLookup(t, "solido_rag")
	for _, tc := range solidoParseCases {
		t.Run(tc.name, func(t *testing.T) {
			resp, ok, err := e.Parse([]byte(tc.data))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || ok != tc.ok || resp.Text != tc.text {
				t.Errorf("got %q ok=%v err=%v, want %q ok=%v", resp.Text, ok, err, tc.text, tc.ok)
			}
		})
	}
}

// FuzzSolidoParse checks that the Solido parser never panics, gives no
// data with an error, and is ok exactly when it found content.
func FuzzSolidoParse(f *testing.F) {
	for _, tc := range solidoParseCases {
		f.Add([]byte(tc.data))
	}
	e := mustLookup(f, "solido_rag")
	f.Fuzz(func(t *testing.T, data []byte) {
		resp, ok, err := e.Parse(data)
		if err != nil && ok {
			t.Fatalf("ok with error %v", err)
		}
		if ok != (resp.Text != "") || resp.Embeddings() != 0 || resp.Usage != nil {
			t.Fatalf("ok=%v for %+v", ok, resp)
		}
	})
}
