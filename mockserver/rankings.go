package mockserver

import (
	"encoding/json"
	"errors"
	"hash/fnv"
	"net/http"
	"slices"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// The rankings APIs: NIM's POST /v1/ranking, Hugging Face TEI's POST
// /rerank and Cohere's POST /v2/rerank. Each answers once, after TTFT (and
// the faults the schedule draws), with one score per passage: a
// deterministic function of the query and the passage, so equal inputs
// rank alike, sorted best first as the real servers sort them.

// rankingsAPI is one of the rankings request and response shapes.
type rankingsAPI int

const (
	rankNIM rankingsAPI = iota
	rankTEI
	rankCohere
)

func init() {
	for _, rt := range []struct {
		pattern string
		api     rankingsAPI
	}{
		{"POST /v1/ranking", rankNIM},
		{"POST /rerank", rankTEI},
		{"POST /v2/rerank", rankCohere},
	} {
		routes = append(routes, route{rt.pattern, func(s *Server) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { s.serveRankings(w, r, rt.api) }
		}})
	}
}

// rankingsRequest holds the fields of the three request shapes: NIM's
// {"query":{"text"},"passages":[{"text"}]}, TEI's {"query","texts":[…]},
// Cohere's {"query","documents":[…]}.
type rankingsRequest struct {
	Query    json.RawMessage `json:"query"`
	Passages []struct {
		Text string `json:"text"`
	} `json:"passages"`
	Texts     []string `json:"texts"`
	Documents []string `json:"documents"`
}

var errNoPassages = errors.New("no passages to rank")

// parse returns the query and the passages of body for api.
func (api rankingsAPI) parse(body []byte) (query string, passages []string, err error) {
	var req rankingsRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return "", nil, err
	}
	switch api {
	case rankNIM:
		var q struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(req.Query, &q); err != nil {
			return "", nil, errors.New(`"query" must be {"text": …}`)
		}
		query = q.Text
		for _, p := range req.Passages {
			passages = append(passages, p.Text)
		}
	case rankTEI:
		err = json.Unmarshal(req.Query, &query)
		passages = req.Texts
	default:
		err = json.Unmarshal(req.Query, &query)
		passages = req.Documents
	}
	if err != nil {
		return "", nil, errors.New(`"query" must be a string`)
	}
	if len(passages) == 0 {
		return "", nil, errNoPassages
	}
	return query, passages, nil
}

// serveRankings answers one rankings request in api's shape.
func (s *Server) serveRankings(w http.ResponseWriter, r *http.Request, api rankingsAPI) {
	a, body, ok := s.admitRaw(w, r, epRankings)
	if !ok {
		return
	}
	defer a.done()
	query, passages, err := api.parse(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	s.m.promptTokens.Add(uint64(s.countPrompt(append([]string{query}, passages...))))
	if !s.awaitOnce(w, r, a) {
		return
	}
	a.rec.add(EventBody, 0)
	writeJSON(w, http.StatusOK, api.appendResponse(nil, a.req.Model, a.seq, rank(query, passages)))
}

// ranked is one passage's score.
type ranked struct {
	index int
	score float64
}

// rank scores every passage against the query, in (0, 1), best first (by
// index among equals).
func rank(query string, passages []string) []ranked {
	out := make([]ranked, len(passages))
	for i, p := range passages {
		h := fnv.New64a()
		_, _ = h.Write([]byte(query))
		_, _ = h.Write([]byte{0})
		_, _ = h.Write([]byte(p))
		out[i] = ranked{i, (float64(h.Sum64()>>11) + 0.5) / (1 << 53)}
	}
	slices.SortStableFunc(out, func(a, b ranked) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	return out
}

// appendResponse appends the response body of api: NIM's
// {"rankings":[{"index","logit"}]}, TEI's [{"index","score"}], Cohere's
// {"id","results":[{"index","relevance_score"}],"meta":{…}}.
func (api rankingsAPI) appendResponse(b []byte, model string, seq uint64, rs []ranked) []byte {
	key := `"score"`
	switch api {
	case rankNIM:
		b = append(b, `{"rankings":`...)
		key = `"logit"`
	case rankCohere:
		b = append(b, `{"id":"rerank-`...)
		b = strconv.AppendUint(b, seq, 16)
		b = append(b, `","results":`...)
		key = `"relevance_score"`
	}
	b = append(b, '[')
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"index":`...)
		b = strconv.AppendInt(b, int64(r.index), 10)
		b = append(append(append(b, ','), key...), ':')
		b = strconv.AppendFloat(b, r.score, 'g', -1, 64)
		b = append(b, '}')
	}
	b = append(b, ']')
	switch api {
	case rankNIM:
		b = append(b, `,"model":`...)
		b = append(pyjson.AppendString(b, model), '}')
	case rankCohere:
		b = append(b, `,"meta":{"api_version":{"version":"2"},"billed_units":{"search_units":1}}}`...)
	}
	return b
}
