package endpoint

import (
	"bytes"
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

// ModelPathParam is the placeholder of a type's Path that stands for the
// request's model (Bedrock's model ID, a SageMaker endpoint name): the
// runner replaces it, path-escaped, in each request's URL.
const ModelPathParam = "{model}"

// BedrockAnthropicVersion is the anthropic_version member of an Anthropic
// Messages body sent to Bedrock's InvokeModel (it replaces the
// anthropic-version header of the Anthropic API).
const BedrockAnthropicVersion = "bedrock-2023-05-31"

// bedrockConverse is Bedrock's Converse API (bedrock_converse): POST
// /model/{modelId}/converse, or /converse-stream when streaming.
type bedrockConverse struct{}

// bedrockMessages is the Anthropic Messages body on Bedrock's InvokeModel
// (bedrock_messages): POST /model/{modelId}/invoke, or
// /invoke-with-response-stream when streaming.
type bedrockMessages struct{}

func init() {
	Register(Endpoint{Name: "bedrock_converse", Path: "/model/" + ModelPathParam + "/converse",
		StreamPath: "/model/" + ModelPathParam + "/converse-stream", Title: "LLM Metrics",
		SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true, SendsContext: true}, bedrockConverse{})
	Register(Endpoint{Name: "bedrock_messages", Path: "/model/" + ModelPathParam + "/invoke",
		StreamPath: "/model/" + ModelPathParam + "/invoke-with-response-stream", Title: "LLM Metrics",
		SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true, SendsContext: true}, bedrockMessages{})
}

var (
	_ Codec = bedrockConverse{}
	_ Codec = bedrockMessages{}
)

// Members builds a Converse body (the model is in the path, and streaming
// is the path's choice):
//
//	{"messages":[…],["system":[{"text":…}]],["inferenceConfig":{"maxTokens":n}]}
//
// The messages are the user context, the history entries (chat messages
// re-rendered as Converse content blocks), then the turn's Messages items
// as they are, or its message: {"role","content":[{"text":…},{"image":
// {"format","source":{"bytes"}}}]} (an image that is not a data URL is
// sent as an S3 location); audio, video and tools (unless empty) are an
// error.
func (bedrockConverse) Members(members []Member, t *dataset.Turn, c *Context, _ bool) ([]Member, error) {
	if t := bytes.TrimSpace(c.Tools); len(t) > 0 && string(t) != "[]" && string(t) != "null" {
		return nil, errors.New("endpoint: bedrock_converse sends no tools")
	}
	b := append(make([]byte, 0, 64+turnLen(t)+len(c.UserContext)), '[')
	n := 0
	if c.UserContext != "" {
		b = appendConverseText(sep(b, n), "user", c.UserContext)
		n++
	}
	var err error
	for i, h := range c.History {
		if b, err = appendConverseHistory(b, &n, h); err != nil {
			return nil, fmt.Errorf("endpoint: history entry %d: %w", i, err)
		}
	}
	if t.Messages != nil {
		if b, err = appendItems(b, &n, t.Messages, true); err != nil {
			return nil, fmt.Errorf("endpoint: turn messages: %w", err)
		}
	} else if b, err = appendConverseTurn(sep(b, n), t); err != nil {
		return nil, err
	}
	members = append(members, Member{"messages", append(b, ']')})
	if c.SystemPrompt != "" {
		s := append(pyjson.AppendString(append([]byte(nil), `[{"text":`...), c.SystemPrompt), "}]"...)
		members = append(members, Member{"system", s})
	}
	if t.MaxTokens > 0 {
		ic := strconv.AppendInt(append([]byte(nil), `{"maxTokens":`...), int64(t.MaxTokens), 10)
		members = append(members, Member{"inferenceConfig", append(ic, '}')})
	}
	return members, nil
}

// appendConverseText appends {"role":role,"content":[{"text":text}]}.
func appendConverseText(b []byte, role, text string) []byte {
	b = append(b, `{"role":`...)
	b = pyjson.AppendString(b, role)
	b = append(b, `,"content":[{"text":`...)
	b = pyjson.AppendString(b, text)
	return append(b, "}]}"...)
}

// appendConverseTurn appends turn t's message.
func appendConverseTurn(b []byte, t *dataset.Turn) ([]byte, error) {
	role := t.Role
	if role == "" {
		role = "user"
	}
	if len(t.Audios) > 0 || len(t.Videos) > 0 {
		return b, errors.New("endpoint: bedrock_converse sends no audio or video")
	}
	b = append(b, `{"role":`...)
	b = pyjson.AppendString(b, role)
	b = append(b, `,"content":[`...)
	n := 0
	for _, s := range t.Texts {
		if s != "" {
			b = append(pyjson.AppendString(append(sep(b, n), `{"text":`...), s), '}')
			n++
		}
	}
	for i, u := range t.Images {
		if u == "" {
			continue
		}
		var err error
		if b, err = appendConverseImage(sep(b, n), u); err != nil {
			return b, fmt.Errorf("endpoint: turn image %d: %w", i, err)
		}
		n++
	}
	if n == 0 {
		b = append(b, `{"text":""}`...)
	}
	return append(b, "]}"...), nil
}

// appendConverseImage appends {"image":{"format","source":{"bytes"}}} for
// a data URL, {"image":{"format","source":{"s3Location":{"uri"}}}} for
// any other (Converse takes image bytes or an S3 object, not HTTP URLs;
// the format is the name's extension, else png).
func appendConverseImage(b []byte, u string) ([]byte, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		format := "png"
		if i := strings.LastIndexByte(u, '.'); i >= 0 && i > strings.LastIndexByte(u, '/') {
			format = strings.ToLower(u[i+1:])
		}
		if format == "jpg" {
			format = "jpeg"
		}
		b = append(b, `{"image":{"format":`...)
		b = pyjson.AppendString(b, format)
		b = append(b, `,"source":{"s3Location":{"uri":`...)
		return append(pyjson.AppendString(b, u), "}}}}"...), nil
	}
	header, data, _ := strings.Cut(rest, ",")
	mediaType, _, _ := strings.Cut(header, ";")
	format := strings.TrimPrefix(mediaType, "image/")
	switch format {
	case "":
		format = "png"
	case "jpg":
		format = "jpeg"
	}
	b = append(b, `{"image":{"format":`...)
	b = pyjson.AppendString(b, format)
	b = append(b, `,"source":{"bytes":`...)
	return append(pyjson.AppendString(b, data), "}}}"...), nil
}

// appendConverseHistory appends history entry h (a chat message object,
// or an array of them) as Converse messages: string content becomes one
// text block, text and image_url parts become text and image blocks.
func appendConverseHistory(b []byte, n *int, h []byte) ([]byte, error) {
	if len(bytes.TrimSpace(h)) == 0 {
		return b, nil
	}
	var p fastjson.Parser
	v, err := p.ParseBytes(h)
	if err != nil {
		return b, err
	}
	items := []*fastjson.Value{v}
	if v.Type() == fastjson.TypeArray {
		items, _ = v.Array()
	}
	for _, item := range items {
		b = sep(b, *n)
		*n++
		role := item.GetStringBytes("role")
		c := item.Get("content")
		if role == nil || c == nil {
			b = item.MarshalTo(b)
			continue
		}
		if s, err := c.StringBytes(); err == nil {
			b = appendConverseText(b, string(role), string(s))
			continue
		}
		parts, err := c.Array()
		if err != nil {
			b = item.MarshalTo(b)
			continue
		}
		b = append(b, `{"role":`...)
		b = pyjson.AppendString(b, string(role))
		b = append(b, `,"content":[`...)
		for i, part := range parts {
			b = sep(b, i)
			switch string(part.GetStringBytes("type")) {
			case "text":
				b = append(pyjson.AppendString(append(b, `{"text":`...), string(part.GetStringBytes("text"))), '}')
			case "image_url":
				if b, err = appendConverseImage(b, string(part.GetStringBytes("image_url", "url"))); err != nil {
					return b, err
				}
			default:
				b = part.MarshalTo(b)
			}
		}
		b = append(b, "]}"...)
	}
	return b, nil
}

// Authorize sets "Authorization: Bearer <key>" when key is not empty (a
// Bedrock API key; the runner then does not sign with SigV4).
func (bedrockConverse) Authorize(h http.Header, key string) { bedrockBearer(h, key) }

// Authorize is bedrockConverse's.
func (bedrockMessages) Authorize(h http.Header, key string) { bedrockBearer(h, key) }

func bedrockBearer(h http.Header, key string) {
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}

// Parse parses a Converse body or a ConverseStream event. The runner
// hands a stream event over as {"<event type>": payload}:
// contentBlockDelta gives delta.text as Text and
// delta.reasoningContent.text as Reasoning; metadata gives usage
// (inputTokens, outputTokens, totalTokens, cacheReadInputTokens,
// cacheWriteInputTokens); messageStart, contentBlockStart/Stop,
// messageStop and unknown events give ok=false. A body ({"output":
// {"message":{"content":[…]}},"usage":…}) gives its text and
// reasoningContent blocks and usage.
func (bedrockConverse) Parse(v *fastjson.Value) (resp record.Response, ok bool, err error) {
	if v.Type() != fastjson.TypeObject {
		return resp, false, fmt.Errorf("endpoint: parse response: %s is not an object", v.Type())
	}
	if d := present(v.Get("contentBlockDelta")); d != nil {
		d = present(d.Get("delta"))
		if d == nil || d.Type() != fastjson.TypeObject {
			return resp, false, nil
		}
		if resp.Text, err = str(d, "text"); err != nil {
			return resp, false, err
		}
		if r := present(d.Get("reasoningContent")); r != nil && r.Type() == fastjson.TypeObject {
			if resp.Reasoning, err = str(r, "text"); err != nil {
				return record.Response{}, false, err
			}
		}
		return resp, resp.HasContent(), nil
	}
	if m := present(v.Get("metadata")); m != nil && m.Type() == fastjson.TypeObject {
		resp.Usage, err = bedrockUsage(present(m.Get("usage")))
		return resp, resp.Usage != nil && err == nil, err
	}
	out := present(v.Get("output"))
	if out == nil {
		return resp, false, nil
	}
	var blocks []*fastjson.Value
	if msg := present(out.Get("message")); msg != nil {
		if blocks, err = array(msg, "content"); err != nil {
			return resp, false, err
		}
	}
	var text, reasoning []byte
	for _, bl := range blocks {
		if bl.Type() != fastjson.TypeObject {
			continue
		}
		text = append(text, bl.GetStringBytes("text")...)
		reasoning = append(reasoning, bl.GetStringBytes("reasoningContent", "reasoningText", "text")...)
	}
	resp.Text, resp.Reasoning = string(text), string(reasoning)
	if resp.Usage, err = bedrockUsage(present(v.Get("usage"))); err != nil {
		return record.Response{}, false, err
	}
	return resp, resp.HasContent() || resp.Usage != nil, nil
}

// bedrockUsage converts Bedrock's TokenUsage. Its input count excludes
// cached input (disjoint accounting, as Anthropic's), so the prompt tokens
// are inputTokens + cacheReadInputTokens + cacheWriteInputTokens, as
// AIPerf counts them; cached tokens are cacheReadInputTokens. It returns
// nil when u is absent or has no known field.
func bedrockUsage(u *fastjson.Value) (*record.Usage, error) {
	if u == nil {
		return nil, nil
	}
	if u.Type() != fastjson.TypeObject {
		return nil, fmt.Errorf("endpoint: parse response: field \"usage\" is %s, not an object", u.Type())
	}
	var r record.Usage
	var err error
	fields := []struct {
		key string
		p   **int64
	}{{"inputTokens", &r.PromptTokens}, {"outputTokens", &r.CompletionTokens},
		{"totalTokens", &r.TotalTokens}, {"cacheReadInputTokens", &r.CachedTokens}}
	for _, f := range fields {
		if *f.p, err = count(u, f.key); err != nil {
			return nil, err
		}
	}
	write, err := count(u, "cacheWriteInputTokens")
	if err != nil {
		return nil, err
	}
	if r.PromptTokens != nil && (r.CachedTokens != nil || write != nil) {
		in := *r.PromptTokens
		for _, c := range []*int64{r.CachedTokens, write} {
			if c != nil {
				in += *c
			}
		}
		r.PromptTokens = &in
	}
	if r == (record.Usage{}) {
		return nil, nil
	}
	return &r, nil
}

// Members builds the Anthropic Messages body as the messages type does,
// for InvokeModel: anthropic_version "bedrock-2023-05-31" first, no model
// (it is in the path) and no stream member (the path streams).
func (bedrockMessages) Members(members []Member, t *dataset.Turn, c *Context, _ bool) ([]Member, error) {
	start := len(members)
	members = append(members, Member{"anthropic_version", pyjson.AppendString(nil, BedrockAnthropicVersion)})
	members, err := anthropic{}.Members(members, t, c, false)
	if err != nil {
		return nil, err
	}
	out := members[:start+1]
	for _, m := range members[start+1:] {
		if m.Key != "model" {
			out = append(out, m)
		}
	}
	return out, nil
}

// Parse parses an Anthropic message body or stream event (the runner hands
// over the decoded bytes of each "chunk" event), as the messages type does.
func (bedrockMessages) Parse(v *fastjson.Value) (record.Response, bool, error) {
	return anthropic{}.Parse(v)
}
