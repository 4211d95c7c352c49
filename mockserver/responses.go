package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// responsesFramer frames OpenAI Responses API responses (POST
// /v1/responses). A stream sends response.created at once, each token
// chunk as response.reasoning_text.delta (output 0, when there is
// reasoning) or response.output_text.delta (the message output, opened
// by response.output_item.added), and at the end output_text.done with
// the whole text and response.completed with usage (null with NoUsage).
// A body is the response object with a reasoning summary item and a
// message item.
type responsesFramer struct{}

var responsesShape = shape{fr: responsesFramer{}}

func init() {
	routes = append(routes, route{"POST /v1/responses", func(s *Server) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { s.serveGenerate(w, r, epResponses, &responsesShape) }
	}})
}

func (responsesFramer) reasons() bool { return true }

// prepare takes the prompt from instructions and the text of the input (a
// string, or items whose content is a string or input_text/output_text
// parts) and the limit from max_output_tokens.
func (responsesFramer) prepare(r *request) ([]string, error) {
	var texts []string
	if r.Instructions != "" {
		texts = append(texts, r.Instructions)
	}
	in := bytes.TrimSpace(r.Input)
	if len(in) > 0 && in[0] == '"' {
		var s string
		if err := json.Unmarshal(in, &s); err != nil {
			return nil, err
		}
		texts = append(texts, s)
	} else if len(in) > 0 {
		var items []struct {
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(in, &items); err != nil {
			return nil, errors.New("input: want a string or a list of items")
		}
		for _, it := range items {
			c := bytes.TrimSpace(it.Content)
			if len(c) > 0 && c[0] == '"' {
				var s string
				if err := json.Unmarshal(c, &s); err != nil {
					return nil, err
				}
				texts = append(texts, s)
				continue
			}
			var parts []struct{ Type, Text string }
			_ = json.Unmarshal(c, &parts)
			for _, p := range parts {
				if p.Type == "input_text" || p.Type == "output_text" {
					texts = append(texts, p.Text)
				}
			}
		}
	}
	r.MaxTokens, r.MaxCompletionTokens = r.MaxOutputTokens, nil
	return texts, nil
}

// appendResponsesEvent appends "event: typ\ndata: {"type":"typ"," and
// leaves the object open.
func appendResponsesEvent(b []byte, typ string) []byte {
	b = append(b, "event: "...)
	b = append(b, typ...)
	b = append(b, "\ndata: {\"type\":\""...)
	b = append(b, typ...)
	return append(b, `",`...)
}

// appendResponseObject appends the response object, with output (JSON)
// and usage when done.
func appendResponseObject(b []byte, g *generation, status string, output func([]byte) []byte, usage bool) []byte {
	b = append(b, `{"id":"resp_`...)
	b = strconv.AppendUint(b, g.seq, 16)
	b = append(b, `","object":"response","created_at":`...)
	b = strconv.AppendInt(b, g.arrival.Unix(), 10)
	b = append(b, `,"status":"`...)
	b = append(b, status...)
	b = append(b, `","model":`...)
	b = pyjson.AppendString(b, g.req.Model)
	b = append(b, `,"output":[`...)
	if output != nil {
		b = output(b)
	}
	b = append(b, `],"usage":`...)
	if !usage || g.s.cfg.NoUsage {
		b = append(b, "null"...)
	} else {
		u := g.usage
		b = append(b, `{"input_tokens":`...)
		b = strconv.AppendInt(b, int64(u.prompt), 10)
		b = append(b, `,"input_tokens_details":{"cached_tokens":0},"output_tokens":`...)
		b = strconv.AppendInt(b, int64(u.completion), 10)
		b = append(b, `,"output_tokens_details":{"reasoning_tokens":`...)
		b = strconv.AppendInt(b, int64(u.reasoning), 10)
		b = append(b, `},"total_tokens":`...)
		b = strconv.AppendInt(b, int64(u.prompt+u.completion), 10)
		b = append(b, '}')
	}
	return append(b, '}')
}

func (responsesFramer) start(b []byte, g *generation) []byte {
	b = appendResponsesEvent(b, "response.created")
	b = append(b, `"sequence_number":0,"response":`...)
	b = appendResponseObject(b, g, "in_progress", nil, false)
	return append(b, "}\n\n"...)
}

// messageOutput is the output index of the message item.
func messageOutput(g *generation) int {
	if g.plan.reasoning > 0 {
		return 1
	}
	return 0
}

func (responsesFramer) token(b []byte, g *generation, k, field, from, count int, _ bool) []byte {
	seq := int64(k + 2)
	if field == fieldReasoning {
		b = appendResponsesEvent(b, "response.reasoning_text.delta")
		b = append(b, `"item_id":"rs_`...)
	} else {
		if k == g.rEvents {
			b = appendResponsesEvent(b, "response.output_item.added")
			b = append(b, `"output_index":`...)
			b = strconv.AppendInt(b, int64(messageOutput(g)), 10)
			b = append(b, `,"item":{"id":"msg_`...)
			b = strconv.AppendUint(b, g.seq, 16)
			b = append(b, `","type":"message","status":"in_progress","role":"assistant","content":[]},"sequence_number":`...)
			b = strconv.AppendInt(b, seq-1, 10)
			b = append(b, "}\n\n"...)
		}
		b = appendResponsesEvent(b, "response.output_text.delta")
		b = append(b, `"item_id":"msg_`...)
	}
	b = strconv.AppendUint(b, g.seq, 16)
	b = append(b, `","output_index":`...)
	if field == fieldReasoning {
		b = append(b, '0')
	} else {
		b = strconv.AppendInt(b, int64(messageOutput(g)), 10)
	}
	b = append(b, `,"content_index":0,"delta":"`...)
	b = words.appendTokens(b, from, count)
	b = append(b, `","sequence_number":`...)
	b = strconv.AppendInt(b, seq, 10)
	return append(b, "}\n\n"...)
}

func (responsesFramer) end(b []byte, g *generation) []byte {
	seq := int64(g.nEvents + 2)
	b = appendResponsesEvent(b, "response.output_text.done")
	b = append(b, `"item_id":"msg_`...)
	b = strconv.AppendUint(b, g.seq, 16)
	b = append(b, `","output_index":`...)
	b = strconv.AppendInt(b, int64(messageOutput(g)), 10)
	b = append(b, `,"content_index":0,"text":"`...)
	b = words.appendTokens(b, g.start+g.plan.reasoning, g.plan.content)
	b = append(b, `","sequence_number":`...)
	b = strconv.AppendInt(b, seq, 10)
	b = append(b, "}\n\n"...)
	b = appendResponsesEvent(b, "response.completed")
	b = append(b, `"sequence_number":`...)
	b = strconv.AppendInt(b, seq+1, 10)
	b = append(b, `,"response":`...)
	b = appendResponseObject(b, g, responsesStatus(g.plan.finish), func(b []byte) []byte { return appendResponsesOutput(b, g) }, true)
	return append(b, "}\n\n"...)
}

func (responsesFramer) body(b []byte, g *generation) []byte {
	return appendResponseObject(b, g, responsesStatus(g.plan.finish), func(b []byte) []byte { return appendResponsesOutput(b, g) }, true)
}

// appendResponsesOutput appends the output items: a reasoning item with
// the reasoning as its summary (when there is reasoning), then the message.
func appendResponsesOutput(b []byte, g *generation) []byte {
	if g.plan.reasoning > 0 {
		b = append(b, `{"id":"rs_`...)
		b = strconv.AppendUint(b, g.seq, 16)
		b = append(b, `","type":"reasoning","summary":[{"type":"summary_text","text":"`...)
		b = words.appendTokens(b, g.start, g.plan.reasoning)
		b = append(b, `"}]},`...)
	}
	b = append(b, `{"id":"msg_`...)
	b = strconv.AppendUint(b, g.seq, 16)
	b = append(b, `","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"`...)
	b = words.appendTokens(b, g.start+g.plan.reasoning, g.plan.content)
	return append(b, `","annotations":[]}]}`...)
}

// responsesStatus is the status of a finished response: "incomplete" when
// it hit the limit.
func responsesStatus(finish string) string {
	if finish == "length" {
		return "incomplete"
	}
	return "completed"
}
