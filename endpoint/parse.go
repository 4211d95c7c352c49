package endpoint

import (
	"bytes"
	"fmt"

	"github.com/valyala/fastjson"

	"github.com/aiperf-go/aiperf/record"
)

// ServerError is returned by Parse for a body or stream message that carries
// an error object instead of a response, as vLLM and SGLang send mid-stream
// (`{"object":"error","message":…}` or `{"error":{"message":…,"type":…}}`).
type ServerError struct {
	Type    string
	Message string
}

func (e *ServerError) Error() string {
	if e.Type == "" {
		return "endpoint: server error: " + e.Message
	}
	return "endpoint: server error: " + e.Type + ": " + e.Message
}

// parsers reuses fastjson parsers: Parse runs for every SSE event, on the
// goroutine that stamps the next one, so it must not allocate a tree per
// event (encoding/json cost half the client's CPU when streaming).
var parsers fastjson.ParserPool

// Parse parses one SSE data payload (streaming) or a whole response body
// (non-streaming). It leaves resp.PerfNS zero: the caller stamps it.
//
// ok is false when the payload carries no data: empty, "[DONE]", an object
// type foreign to the endpoint, or neither content, reasoning, embeddings
// nor usage (role-only and empty chunks). A usage-only chunk gives ok=true
// with no content. Malformed JSON, or JSON of the wrong shape, gives an
// error; an error object from the server gives a *ServerError. A missing
// "object" is inferred from the shape (choices[0].delta is a chunk,
// choices[0].message a completion). Rankings types are parsed as described
// at parseRankings (their count goes in Embeddings). Parse is safe for
// concurrent use.
func (e *Endpoint) Parse(data []byte) (resp record.Response, ok bool, err error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "[DONE]" {
		return resp, false, nil
	}
	p := parsers.Get()
	defer parsers.Put(p)
	v, err := p.ParseBytes(data)
	if err != nil {
		if tp, ok := e.codec.(textParser); ok {
			return tp.ParseText(data)
		}
		return resp, false, fmt.Errorf("endpoint: parse response: %w", err)
	}
	if e.codec != nil {
		return e.codec.Parse(v)
	}
	if e.rankings() {
		return e.parseRankings(v)
	}
	if v.Type() != fastjson.TypeObject {
		return resp, false, fmt.Errorf("endpoint: parse response: %s is not an object", v.Type())
	}
	object, err := str(v, "object")
	if err != nil {
		return resp, false, err
	}
	if ev := v.Get("error"); object == "error" || (ev != nil && ev.Type() != fastjson.TypeNull) {
		return resp, false, serverError(v)
	}
	choices, err := array(v, "choices")
	if err != nil {
		return resp, false, err
	}
	switch e.Name {
	case "chat":
		var m *fastjson.Value
		if len(choices) > 0 {
			c := choices[0]
			switch object {
			case "chat.completion.chunk":
				m = present(c.Get("delta"))
			case "chat.completion":
				m = present(c.Get("message"))
			case "":
				if m = present(c.Get("delta")); m == nil {
					m = present(c.Get("message"))
				}
			default:
				return resp, false, nil
			}
		} else if object != "" && object != "chat.completion.chunk" && object != "chat.completion" {
			return resp, false, nil
		}
		if m != nil {
			if resp.Text, err = str(m, "content"); err != nil {
				return resp, false, err
			}
			if resp.Reasoning, err = str(m, "reasoning_content"); err != nil {
				return resp, false, err
			}
			if resp.Reasoning == "" {
				if resp.Reasoning, err = str(m, "reasoning"); err != nil {
					return resp, false, err
				}
			}
		}
	case "completions":
		if object != "" && object != "text_completion" {
			return resp, false, nil
		}
		if len(choices) > 0 {
			if resp.Text, err = str(choices[0], "text"); err != nil {
				return resp, false, err
			}
		}
	case "embeddings", "nim_embeddings":
		if object != "" && object != "list" {
			return resp, false, nil
		}
		data, err := array(v, "data")
		if err != nil {
			return resp, false, err
		}
		for _, d := range data {
			o, err := str(d, "object")
			if err != nil {
				return resp, false, err
			}
			if o == "embedding" || o == "" {
				resp.Out().Embeddings++
			}
		}
	default:
		return resp, false, fmt.Errorf("endpoint: no parser for type %q", e.Name)
	}
	if resp.Usage, err = usage(present(v.Get("usage"))); err != nil {
		return resp, false, err
	}
	ok = resp.HasContent() || resp.Usage != nil
	return resp, ok, nil
}

// present returns v, or nil when v is absent or JSON null.
func present(v *fastjson.Value) *fastjson.Value {
	if v == nil || v.Type() == fastjson.TypeNull {
		return nil
	}
	return v
}

// str returns the string field key of v: "" when absent or null, an error
// when it is another type.
func str(v *fastjson.Value, key string) (string, error) {
	f := present(v.Get(key))
	if f == nil {
		return "", nil
	}
	b, err := f.StringBytes()
	if err != nil {
		return "", fmt.Errorf("endpoint: parse response: field %q: %w", key, err)
	}
	return string(b), nil
}

// array returns the array field key of v: nil when absent or null, an error
// when it is another type.
func array(v *fastjson.Value, key string) ([]*fastjson.Value, error) {
	f := present(v.Get(key))
	if f == nil {
		return nil, nil
	}
	a, err := f.Array()
	if err != nil {
		return nil, fmt.Errorf("endpoint: parse response: field %q: %w", key, err)
	}
	return a, nil
}

// count returns the integer field key of v, or nil when absent or null.
func count(v *fastjson.Value, key string) (*int64, error) {
	f := present(v.Get(key))
	if f == nil {
		return nil, nil
	}
	n, err := f.Int64()
	if err != nil {
		return nil, fmt.Errorf("endpoint: parse response: field %q: %w", key, err)
	}
	return &n, nil
}

// usage converts a usage object, returning nil when it is absent or has no
// known field.
func usage(u *fastjson.Value) (*record.Usage, error) {
	if u == nil {
		return nil, nil
	}
	if u.Type() != fastjson.TypeObject {
		return nil, fmt.Errorf("endpoint: parse response: field \"usage\" is %s, not an object", u.Type())
	}
	var r record.Usage
	var err error
	fields := []struct {
		dst      **int64
		obj, key string
	}{
		{&r.PromptTokens, "", "prompt_tokens"},
		{&r.CompletionTokens, "", "completion_tokens"},
		{&r.TotalTokens, "", "total_tokens"},
		{&r.ReasoningTokens, "completion_tokens_details", "reasoning_tokens"},
		{&r.CachedTokens, "prompt_tokens_details", "cached_tokens"},
	}
	for _, f := range fields {
		src := u
		if f.obj != "" {
			if src = present(u.Get(f.obj)); src == nil {
				continue
			}
			if src.Type() != fastjson.TypeObject {
				return nil, fmt.Errorf("endpoint: parse response: field %q is %s, not an object", f.obj, src.Type())
			}
		}
		if *f.dst, err = count(src, f.key); err != nil {
			return nil, err
		}
	}
	if r == (record.Usage{}) {
		return nil, nil
	}
	return &r, nil
}

// serverError extracts type and message from either error shape: top-level
// {"object":"error","type","message"} or {"error": {...} | "text"}. Fields of
// other types are ignored.
func serverError(v *fastjson.Value) *ServerError {
	se := &ServerError{}
	se.Type, _ = str(v, "type")
	se.Message, _ = str(v, "message")
	if ev := present(v.Get("error")); ev != nil {
		switch ev.Type() {
		case fastjson.TypeString:
			b, _ := ev.StringBytes()
			se.Message = string(b)
		case fastjson.TypeObject:
			se.Type, _ = str(ev, "type")
			se.Message, _ = str(ev, "message")
		}
	}
	if se.Message == "" {
		se.Message = "unknown error"
	}
	return se
}
