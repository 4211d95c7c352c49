package endpoint

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/record"
)

// AnthropicVersion is the anthropic-version header every messages
// request carries (AIPerf's value), unless a user header sets it.
const AnthropicVersion = "2023-06-01"

// DefaultAnthropicMaxTokens is the max_tokens of a messages request whose
// turn sets none: Anthropic requires the field, and this is AIPerf's value.
const DefaultAnthropicMaxTokens = 1024

// anthropic is the Anthropic Messages API type (messages): POST
// /v1/messages.
type anthropic struct{}

func init() {
	Register(Endpoint{Name: "messages", Path: "/v1/messages", Title: "LLM Metrics",
		SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true, SendsContext: true}, anthropic{})
}

var _ Codec = anthropic{}

// Members builds the body as AIPerf does:
//
//	{"model":…,"messages":[…],"max_tokens":n,["stream":true],
//	 ["system":system prompt],["tools"]}
//
// max_tokens is the turn's, else DefaultAnthropicMaxTokens; stream is sent
// only when streaming. The messages are the user context as {"role":"user",
// "content":…}, the history entries (see appendHistory), then the turn's
// Messages items, or
// its message {"role","content"}: a string for one text and no media, else
// parts {"type":"text","text"} and {"type":"image","source":{"type":
// "base64","media_type","data"}} for a data URL or {"type":"image",
// "source":{"type":"url","url"}} ("" when none). Audio and video are an
// error: the API takes neither.
func (anthropic) Members(members []Member, t *dataset.Turn, c *Context, streaming bool) ([]Member, error) {
	b := append(make([]byte, 0, 64+turnLen(t)+len(c.UserContext)), '[')
	n := 0
	if c.UserContext != "" {
		b = appendTextMessage(b, "user", c.UserContext)
		n++
	}
	b, err := appendConversation(b, &n, c.History, t, &anthropicParts, false)
	if err != nil {
		return nil, err
	}
	b = append(b, ']')
	maxTokens := t.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultAnthropicMaxTokens
	}
	members = append(members,
		Member{"model", pyjson.AppendString(nil, t.Model)},
		Member{"messages", b},
		Member{"max_tokens", strconv.AppendInt(nil, int64(maxTokens), 10)})
	if streaming {
		members = append(members, Member{"stream", []byte("true")})
	}
	if c.SystemPrompt != "" {
		members = append(members, Member{"system", pyjson.AppendString(nil, c.SystemPrompt)})
	}
	if members, err = appendTools(members, c.Tools); err != nil {
		return nil, err
	}
	return members, nil
}

// anthropicParts renders the Anthropic content blocks.
var anthropicParts = partRenderer{
	text: func(b []byte, s string) []byte {
		b = append(b, `{"type":"text","text":`...)
		return append(pyjson.AppendString(b, s), '}')
	},
	image: func(b []byte, u string) []byte {
		if rest, ok := strings.CutPrefix(u, "data:"); ok {
			header, data, _ := strings.Cut(rest, ",")
			mediaType, _, _ := strings.Cut(header, ";")
			if mediaType == "" {
				mediaType = "image/png"
			}
			b = append(b, `{"type":"image","source":{"type":"base64","media_type":`...)
			b = pyjson.AppendString(b, mediaType)
			b = append(b, `,"data":`...)
			return append(pyjson.AppendString(b, data), "}}"...)
		}
		b = append(b, `{"type":"image","source":{"type":"url","url":`...)
		return append(pyjson.AppendString(b, u), "}}"...)
	},
	audioErr: errors.New("the Anthropic Messages API takes no audio input"),
	video:    errors.New("the Anthropic Messages API takes no video input"),
}

// Authorize sets "x-api-key: <key>" when key is not empty, and
// "anthropic-version: 2023-06-01" unless h already has one.
func (anthropic) Authorize(h http.Header, key string) {
	if key != "" {
		h.Set("X-Api-Key", key)
	}
	if h.Get("Anthropic-Version") == "" {
		h.Set("Anthropic-Version", AnthropicVersion)
	}
}

// Parse parses an Anthropic stream event or body by its "type", as AIPerf
// does: message_start gives message.usage (input_tokens);
// content_block_delta gives text_delta's text as Text, thinking_delta's
// thinking as Reasoning and input_json_delta's partial_json (tool-call
// text) as Text; message_delta gives usage (output_tokens); a "message"
// body gives its text, thinking and tool_use blocks (name and input) and
// usage; an "error" payload gives a *ServerError. ping, content_block_start
// and _stop, message_stop and unknown types give ok=false.
func (anthropic) Parse(v *fastjson.Value) (resp record.Response, ok bool, err error) {
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
	case "content_block_delta":
		d := present(v.Get("delta"))
		if d == nil || d.Type() != fastjson.TypeObject {
			return resp, false, nil
		}
		switch string(d.GetStringBytes("type")) {
		case "text_delta":
			resp.Text, err = str(d, "text")
		case "thinking_delta":
			resp.Reasoning, err = str(d, "thinking")
		case "input_json_delta":
			resp.Text, err = str(d, "partial_json")
		}
	case "message_start":
		if m := present(v.Get("message")); m != nil && m.Type() == fastjson.TypeObject {
			resp.Usage, err = openUsage(present(m.Get("usage")))
		}
	case "message_delta":
		resp.Usage, err = openUsage(present(v.Get("usage")))
	case "message":
		return anthropicBody(v)
	case "error":
		return resp, false, serverError(v)
	default:
		return resp, false, nil
	}
	if err != nil {
		return record.Response{}, false, err
	}
	return resp, resp.HasContent() || resp.Usage != nil, nil
}

// anthropicBody reads a non-streaming "message" body: text blocks as Text,
// thinking blocks as Reasoning, tool_use blocks' name and compact input
// appended to Text when there is no thinking (AIPerf's precedence), and
// usage.
func anthropicBody(v *fastjson.Value) (resp record.Response, ok bool, err error) {
	blocks, err := array(v, "content")
	if err != nil {
		return record.Response{}, false, err
	}
	var text, thinking, tool []byte
	for _, bl := range blocks {
		if bl.Type() != fastjson.TypeObject {
			continue
		}
		switch string(bl.GetStringBytes("type")) {
		case "text":
			text = append(text, bl.GetStringBytes("text")...)
		case "thinking":
			thinking = append(thinking, bl.GetStringBytes("thinking")...)
		case "tool_use":
			tool = append(tool, bl.GetStringBytes("name")...)
			if in := present(bl.Get("input")); in != nil && in.String() != "{}" && in.String() != "[]" {
				tool = in.MarshalTo(tool)
			}
		}
	}
	resp.Text = string(text)
	if len(thinking) > 0 {
		resp.Reasoning = string(thinking)
	} else {
		resp.Text += string(tool)
	}
	if resp.Usage, err = openUsage(present(v.Get("usage"))); err != nil {
		return record.Response{}, false, err
	}
	return resp, resp.HasContent() || resp.Usage != nil, nil
}
