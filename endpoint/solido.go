package endpoint

import (
	"fmt"
	"net/http"

	"github.com/valyala/fastjson"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/record"
)

// solido_rag is the Solido RAG pipeline's prompt API (AIPerf's
// SolidoEndpoint).
func init() {
	Register(Endpoint{Name: "solido_rag", Path: "/rag/api/prompt", Title: "SOLIDO RAG Metrics",
		SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true}, solidoCodec{})
}

// solidoFilters are the filters AIPerf always sends.
var solidoFilters = []byte(`{"family":"Solido","tool":"SDE"}`)

// solidoCodec builds and parses solido_rag requests.
type solidoCodec struct{}

// Members appends {"query":[texts],"filters":{"family":"Solido","tool":"SDE"},
// "inference_model":model}, in that order, as AIPerf builds it: the query is
// every non-empty text of the turn (a rankings turn's query, then its
// passages, then its texts); the body carries no "stream" key (the server's
// Content-Type decides, as for every type).
func (solidoCodec) Members(members []Member, t *dataset.Turn, _ *Context, _ bool) ([]Member, error) {
	var query []string
	if t.Query != "" {
		query = append(query, t.Query)
	}
	query = append(append(query, nonEmpty(t.Passages)...), nonEmpty(t.Texts)...)
	return append(members,
		Member{"query", stringList(nil, query)},
		Member{"filters", solidoFilters},
		Member{"inference_model", pyjson.AppendString(nil, t.Model)}), nil
}

// Parse reads a Solido response body or stream message: its "content"
// string is the text; an empty or absent content gives ok=false, as in
// AIPerf. AIPerf also keeps the retrieved "sources" (a list or object) on
// its parsed response, but uses them nowhere; record.Response has no place
// for them, so they are checked for nothing and dropped. An "error" object
// or non-empty string gives a *ServerError; a body that is not an object,
// or a content that is not a string, is an error.
func (solidoCodec) Parse(v *fastjson.Value) (resp record.Response, ok bool, err error) {
	if v.Type() != fastjson.TypeObject {
		return resp, false, fmt.Errorf("endpoint: parse response: %s is not an object", v.Type())
	}
	if ev := present(v.Get("error")); ev != nil && (ev.Type() == fastjson.TypeObject || len(ev.GetStringBytes()) > 0) {
		return resp, false, serverError(v)
	}
	if resp.Text, err = str(v, "content"); err != nil {
		return resp, false, err
	}
	return resp, resp.Text != "", nil
}

// Authorize sets "Authorization: Bearer <key>" when key is not empty.
func (solidoCodec) Authorize(h http.Header, key string) {
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}
