package endpoint

import (
	"errors"
	"testing"
)

var rankingsParseCases = []struct {
	name, endpoint, data string
	ok                   bool
	count                int
	err                  bool
}{
	// NIM: {"rankings":[{"index","logit"},…]}.
	{name: "nim", endpoint: "nim_rankings", ok: true, count: 3,
		data: `{"rankings":[{"index":1,"logit":0.7},{"index":0,"logit":-1.2},{"index":2,"logit":-3.5}],"usage":{"prompt_tokens":30,"total_tokens":30}}`},
	{name: "nim via alias", endpoint: "rankings", ok: true, count: 1, data: `{"rankings":[{"index":0,"logit":1}]}`},
	{name: "nim empty", endpoint: "nim_rankings", data: `{"rankings":[]}`},
	{name: "nim absent", endpoint: "nim_rankings", data: `{"results":[{"index":0}]}`},
	{name: "nim null", endpoint: "nim_rankings", data: `{"rankings":null}`},
	{name: "nim wrong type", endpoint: "nim_rankings", err: true, data: `{"rankings":{"index":0}}`},
	{name: "nim array body", endpoint: "nim_rankings", err: true, data: `[{"index":0}]`},
	// HF TEI: a top-level list, or {"results":[…]}.
	{name: "tei list", endpoint: "hf_tei_rankings", ok: true, count: 2, data: `[{"index":1,"score":0.99},{"index":0,"score":0.01}]`},
	{name: "tei results", endpoint: "hf_tei_rankings", ok: true, count: 1, data: ` {"results":[{"index":0,"score":0.5}]} `},
	{name: "tei empty list", endpoint: "hf_tei_rankings", data: `[]`},
	{name: "tei no results", endpoint: "hf_tei_rankings", data: `{"rankings":[{"index":0}]}`},
	{name: "tei string body", endpoint: "hf_tei_rankings", err: true, data: `"ok"`},
	// Cohere: {"results":[{"index","relevance_score"},…]}; non-objects skipped.
	{name: "cohere", endpoint: "cohere_rankings", ok: true, count: 2,
		data: `{"id":"x","results":[{"index":3,"relevance_score":0.9},{"index":0,"relevance_score":0.1}],"meta":{"billed_units":{"search_units":1}}}`},
	{name: "cohere skips non-objects", endpoint: "cohere_rankings", ok: true, count: 1, data: `{"results":[null,"x",5,{"index":0}]}`},
	{name: "cohere only non-objects", endpoint: "cohere_rankings", data: `{"results":[null,[1]]}`},
	{name: "cohere results wrong type", endpoint: "cohere_rankings", err: true, data: `{"results":"none"}`},
	// Shared: nothing, malformed.
	{name: "empty body", endpoint: "cohere_rankings", data: ``},
	{name: "done", endpoint: "nim_rankings", data: `[DONE]`},
	{name: "malformed", endpoint: "hf_tei_rankings", err: true, data: `[{"index":0}`},
	{name: "number body", endpoint: "nim_rankings", err: true, data: `42`},
}

func TestParseRankings(t *testing.T) {
	for _, tc := range rankingsParseCases {
		t.Run(tc.name, func(t *testing.T) {
			resp, ok, err := mustLookup(t, tc.endpoint).Parse([]byte(tc.data))
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if ok != tc.ok || resp.Embeddings() != tc.count || resp.HasContent() != tc.ok ||
				resp.Text != "" || resp.Reasoning != "" || resp.Usage != nil {
				t.Errorf("got ok=%v %+v; want ok=%v count %d", ok, resp, tc.ok, tc.count)
			}
		})
	}
}

func TestParseRankingsServerError(t *testing.T) {
	for _, name := range []string{"nim_rankings", "hf_tei_rankings", "cohere_rankings"} {
		_, ok, err := mustLookup(t, name).Parse([]byte(`{"error":{"message":"bad query","type":"invalid_request"}}`))
		var se *ServerError
		if ok || !errors.As(err, &se) || se.Message != "bad query" || se.Type != "invalid_request" {
			t.Errorf("%s: ok=%v err=%v, want a ServerError", name, ok, err)
		}
	}
}

func FuzzParseRankings(f *testing.F) {
	for _, tc := range rankingsParseCases {
		f.Add(uint8(len(tc.endpoint)), []byte(tc.data))
	}
	names := []string{"nim_rankings", "hf_tei_rankings", "cohere_rankings"}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		e := mustLookup(t, names[int(which)%len(names)])
		resp, ok, err := e.Parse(data)
		if err != nil && ok {
			t.Fatalf("ok with error %v", err)
		}
		if ok != resp.HasContent() || ok != (resp.Embeddings() > 0) {
			t.Fatalf("ok=%v for %+v", ok, resp)
		}
		if resp.Text != "" || resp.Reasoning != "" || resp.Usage != nil || resp.Embeddings() < 0 {
			t.Fatalf("rankings gave %+v", resp)
		}
	})
}
