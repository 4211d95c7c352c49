package endpoint

import (
	"errors"
	"fmt"

	"github.com/valyala/fastjson"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/record"
)

// rankingsMembers appends the body members of a rankings turn (see Request
// for the shapes). The query is t.Query, or else t.Texts[0]; the passages
// are t.Passages, or else the texts left after the query. A turn with
// neither a Query nor Texts is an error, as in AIPerf.
func (e *Endpoint) rankingsMembers(members []Member, t *dataset.Turn) ([]Member, error) {
	query, rest := t.Query, t.Texts
	if query == "" {
		if len(t.Texts) == 0 {
			return nil, errors.New("endpoint: rankings turn has no query (neither Query nor Texts)")
		}
		query, rest = t.Texts[0], t.Texts[1:]
	}
	passages := t.Passages
	if len(passages) == 0 {
		passages = rest
	}
	q := pyjson.AppendString(make([]byte, 0, 2+len(query)), query)
	switch e.Name {
	case "nim_rankings":
		q = append(append([]byte(`{"text":`), q...), '}')
		b := make([]byte, 0, 2+textsLen(passages)+12*len(passages))
		b = append(b, '[')
		for i, p := range passages {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"text":`...)
			b = append(pyjson.AppendString(b, p), '}')
		}
		b = append(b, ']')
		return append(members,
			Member{"model", pyjson.AppendString(nil, t.Model)},
			Member{"query", q},
			Member{"passages", b}), nil
	case "hf_tei_rankings":
		return append(members, Member{"query", q}, Member{"texts", stringList(nil, passages)}), nil
	default: // cohere_rankings
		return append(members,
			Member{"model", pyjson.AppendString(nil, t.Model)},
			Member{"query", q},
			Member{"documents", stringList(nil, passages)}), nil
	}
}

// parseRankings parses a rankings response body v (§6.2): nim_rankings reads
// the "rankings" list; hf_tei_rankings a top-level list, or else the
// "results" list; cohere_rankings the objects of the "results" list (index
// and relevance_score). record.Response has no rankings field, so the
// number of rankings goes in Embeddings, which makes the response count as
// content for the timing metrics. An empty or absent list gives ok=false; a
// list field of another type is an error; an error object gives a
// *ServerError.
func (e *Endpoint) parseRankings(v *fastjson.Value) (resp record.Response, ok bool, err error) {
	var list []*fastjson.Value
	switch v.Type() {
	case fastjson.TypeArray:
		if e.Name != "hf_tei_rankings" {
			return resp, false, fmt.Errorf("endpoint: parse response: %s body is an array, not an object", e.Name)
		}
		list, _ = v.Array()
	case fastjson.TypeObject:
		object, err := str(v, "object")
		if err != nil {
			return resp, false, err
		}
		if ev := v.Get("error"); object == "error" || (ev != nil && ev.Type() != fastjson.TypeNull) {
			return resp, false, serverError(v)
		}
		key := "results"
		if e.Name == "nim_rankings" {
			key = "rankings"
		}
		if list, err = array(v, key); err != nil {
			return resp, false, err
		}
	default:
		return resp, false, fmt.Errorf("endpoint: parse response: %s is not an object", v.Type())
	}
	n := len(list)
	if e.Name == "cohere_rankings" {
		// AIPerf keeps only the object items (index, relevance_score).
		n = 0
		for _, r := range list {
			if r.Type() == fastjson.TypeObject {
				n++
			}
		}
	}
	resp.Out().Embeddings = n
	return resp, n > 0, nil
}
