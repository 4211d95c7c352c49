package mockserver

import (
	"errors"
	"net/http"
	"strconv"
)

// tgiFramer frames Hugging Face TGI responses: POST /generate answers
// {"generated_text":…}; POST /generate_stream streams one event per token
// chunk, `data:{"index":k,"token":{…,"text":…},"generated_text":null,
// "details":null}`, the last with the whole text and details
// (finish_reason, generated_tokens; null with NoUsage). TGI has no
// reasoning and no [DONE].
type tgiFramer struct{ stream bool }

var (
	tgiShape       = shape{fr: tgiFramer{}}
	tgiStreamShape = shape{fr: tgiFramer{stream: true}}
)

func init() {
	routes = append(routes,
		route{"POST /generate", func(s *Server) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { s.serveGenerate(w, r, epTGI, &tgiShape) }
		}},
		route{"POST /generate_stream", func(s *Server) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { s.serveGenerate(w, r, epTGI, &tgiStreamShape) }
		}})
}

func (tgiFramer) reasons() bool { return false }

// prepare takes the prompt from "inputs" and the limit from
// parameters.max_new_tokens; the route decides streaming.
func (f tgiFramer) prepare(r *request) ([]string, error) {
	if r.Inputs.text == nil {
		return nil, errors.New("inputs: field required")
	}
	r.MaxTokens, r.MaxCompletionTokens = r.Parameters.MaxNewTokens, nil
	r.Stream = f.stream
	return []string{*r.Inputs.text}, nil
}

func (tgiFramer) start(b []byte, _ *generation) []byte { return b }

func (tgiFramer) token(b []byte, g *generation, k, _, from, count int, last bool) []byte {
	b = append(b, `data:{"index":`...)
	b = strconv.AppendInt(b, int64(k), 10)
	b = append(b, `,"token":{"id":`...)
	b = strconv.AppendInt(b, int64(from&(words.n-1)), 10)
	b = append(b, `,"text":"`...)
	b = words.appendTokens(b, from, count)
	b = append(b, `","logprob":-0.25,"special":false},"generated_text":`...)
	if !last {
		return append(b, "null,\"details\":null}\n\n"...)
	}
	b = append(b, '"')
	b = words.appendTokens(b, g.start, g.plan.content)
	b = append(b, `","details":`...)
	if g.s.cfg.NoUsage {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"finish_reason":"`...)
		b = append(b, tgiFinish(g.plan.finish)...)
		b = append(b, `","generated_tokens":`...)
		b = strconv.AppendInt(b, int64(g.plan.total()), 10)
		b = append(b, `,"seed":null}`...)
	}
	return append(b, "}\n\n"...)
}

func (tgiFramer) end(b []byte, _ *generation) []byte { return b }

func (tgiFramer) body(b []byte, g *generation) []byte {
	b = append(b, `{"generated_text":"`...)
	b = words.appendTokens(b, g.start, g.plan.content)
	return append(b, `"}`...)
}

// tgiFinish maps a plan's finish reason to TGI's.
func tgiFinish(finish string) string {
	if finish == "stop" {
		return "eos_token"
	}
	return finish
}
