package endpoint

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/valyala/fastjson"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/record"
)

// responses is the OpenAI Responses API type: POST /v1/responses.
type responses struct{}

func init() {
	Register(Endpoint{Name: "responses", Path: "/v1/responses", Title: "LLM Metrics",
		SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true, SendsContext: true}, responses{})
}

var (
	_ Codec       = responses{}
	_ streamCodec = responses{}
)

// Members builds the body as AIPerf does:
//
//	{"input":[items],"model":…,"stream":…,["instructions":system prompt],
//	 ["max_output_tokens"],["tools"]}
//
// The items are the user context as {"type":"message","role":"user",
// "content":…}, the history entries (see appendHistory), then the turn's
// Messages items verbatim, or its message {"role","content","type":
// "message"}. Content is a string for one text and no media, else parts:
// {"type":"input_text","text"}, {"type":"input_image","image_url":url},
// {"type":"input_audio","input_audio":{"data","format"}} ("" when none).
// Videos are an error: the API takes none.
func (responses) Members(members []Member, t *dataset.Turn, c *Context, streaming bool) ([]Member, error) {
	b := append(make([]byte, 0, 64+turnLen(t)+len(c.UserContext)), '[')
	n := 0
	if c.UserContext != "" {
		b = append(b, `{"type":"message","role":"user","content":`...)
		b = append(pyjson.AppendString(b, c.UserContext), '}')
		n++
	}
	b, err := appendConversation(b, &n, c.History, t, &responsesParts, true)
	if err != nil {
		return nil, err
	}
	b = append(b, ']')
	members = append(members, Member{"input", b})
	members = appendModelStream(members, t.Model, streaming)
	if c.SystemPrompt != "" {
		members = append(members, Member{"instructions", pyjson.AppendString(nil, c.SystemPrompt)})
	}
	if t.MaxTokens > 0 {
		members = append(members, Member{"max_output_tokens", strconv.AppendInt(nil, int64(t.MaxTokens), 10)})
	}
	if members, err = appendTools(members, c.Tools); err != nil {
		return nil, err
	}
	return members, nil
}

// responsesParts renders the Responses API content parts.
var responsesParts = partRenderer{
	text: func(b []byte, s string) []byte {
		b = append(b, `{"type":"input_text","text":`...)
		return append(pyjson.AppendString(b, s), '}')
	},
	image: func(b []byte, u string) []byte {
		b = append(b, `{"type":"input_image","image_url":`...)
		return append(pyjson.AppendString(b, u), '}')
	},
	audio: appendAudioPart,
	video: errors.New("the Responses API takes no video input; use chat for video turns"),
}

// Authorize sets "Authorization: Bearer <key>" when key is not empty.
func (responses) Authorize(h http.Header, key string) {
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}

// Parse parses a stream event or body on its own: see ParseStream, with
// every response.output_text.done taken as the only carrier of its text.
func (r responses) Parse(v *fastjson.Value) (resp record.Response, ok bool, err error) {
	return r.ParseStream(v, nil)
}

// ParseStream parses one Responses API stream event (an object with
// "type") or a whole body ("object":"response"), as AIPerf does:
// response.output_text.delta and response.function_call_arguments.delta
// give Text; response.reasoning_text.delta gives Reasoning (reasoning
// summary deltas are ignored, as AIPerf 0.13 does);
// response.output_text.done gives its text only when no delta of its part
// (output_index, content_index) was seen in st (a nil st sees none);
// response.completed gives response.usage. Error and response.failed
// events, and a body with "error", give a *ServerError. Other events give
// ok=false.
//
// One divergence from AIPerf: after deltas, AIPerf keeps the done event as
// an empty content response (ending request latency at it); record has no
// such response, so here it gives ok=false.
func (responses) ParseStream(v *fastjson.Value, st *Stream) (resp record.Response, ok bool, err error) {
	if v.Type() != fastjson.TypeObject {
		return resp, false, fmt.Errorf("endpoint: parse response: %s is not an object", v.Type())
	}
	var typ []byte
	if t := present(v.Get("type")); t != nil {
		if typ, err = t.StringBytes(); err != nil {
			return resp, false, fmt.Errorf("endpoint: parse response: field \"type\": %w", err)
		}
	}
	switch string(typ) {
	case "":
		object, err := str(v, "object")
		if err != nil {
			return record.Response{}, false, err
		}
		if ev := present(v.Get("error")); ev != nil && ev.Type() == fastjson.TypeObject {
			return resp, false, serverError(v)
		}
		if object != "response" {
			return resp, false, nil
		}
		return responsesBody(v)
	case "response.output_text.delta":
		resp.Text, err = str(v, "delta")
		if err == nil && resp.Text != "" && st != nil {
			st.mark(partOf(v))
		}
	case "response.reasoning_text.delta":
		resp.Reasoning, err = str(v, "delta")
	case "response.function_call_arguments.delta":
		resp.Text, err = str(v, "delta") // tool-call text counts as output
	case "response.output_text.done":
		if st != nil && st.seen(partOf(v)) {
			return resp, false, nil
		}
		resp.Text, err = str(v, "text")
	case "response.completed":
		if r := present(v.Get("response")); r != nil && r.Type() == fastjson.TypeObject {
			resp.Usage, err = openUsage(present(r.Get("usage")))
		}
	case "error":
		se := &ServerError{}
		se.Type, _ = str(v, "code")
		se.Message, _ = str(v, "message")
		if se.Message == "" {
			return resp, false, serverError(v)
		}
		return resp, false, se
	case "response.failed":
		se := &ServerError{Type: "response.failed", Message: "response failed"}
		if r := present(v.Get("response")); r != nil && r.Type() == fastjson.TypeObject {
			if e := present(r.Get("error")); e != nil && e.Type() == fastjson.TypeObject {
				se.Type, _ = str(e, "code")
				se.Message, _ = str(e, "message")
			}
		}
		return resp, false, se
	default:
		return resp, false, nil
	}
	if err != nil {
		return record.Response{}, false, err
	}
	return resp, resp.HasContent() || resp.Usage != nil, nil
}

// partOf returns the part an event belongs to.
func partOf(v *fastjson.Value) streamPart {
	p := streamPart{-1, -1}
	if f := v.Get("output_index"); f != nil {
		p.output, _ = f.Int64()
	}
	if f := v.Get("content_index"); f != nil {
		p.content, _ = f.Int64()
	}
	return p
}

// responsesBody reads a non-streaming response: the output[] walk of
// AIPerf (reasoning summary_text parts as Reasoning, with the message
// output_text parts as Text; without reasoning the text; function calls'
// name and arguments as Text when there is neither), or else the
// output_text convenience field; and usage.
func responsesBody(v *fastjson.Value) (resp record.Response, ok bool, err error) {
	output, err := array(v, "output")
	if err != nil {
		return record.Response{}, false, err
	}
	var text, reasoning, tool []byte
	for _, item := range output {
		if item.Type() != fastjson.TypeObject {
			continue
		}
		switch string(item.GetStringBytes("type")) {
		case "reasoning":
			for _, p := range item.GetArray("summary") {
				if string(p.GetStringBytes("type")) == "summary_text" {
					reasoning = append(reasoning, p.GetStringBytes("text")...)
				}
			}
		case "message":
			for _, p := range item.GetArray("content") {
				if string(p.GetStringBytes("type")) == "output_text" {
					text = append(text, p.GetStringBytes("text")...)
				}
			}
		case "function_call":
			tool = append(tool, item.GetStringBytes("name")...)
			tool = append(tool, item.GetStringBytes("arguments")...)
		}
	}
	switch {
	case len(reasoning) > 0:
		resp.Text, resp.Reasoning = string(text), string(reasoning)
	case len(text) > 0:
		resp.Text = string(text)
	case len(tool) > 0:
		resp.Text = string(tool)
	default:
		if resp.Text, err = str(v, "output_text"); err != nil {
			return record.Response{}, false, err
		}
	}
	if resp.Usage, err = openUsage(present(v.Get("usage"))); err != nil {
		return record.Response{}, false, err
	}
	return resp, resp.HasContent() || resp.Usage != nil, nil
}
