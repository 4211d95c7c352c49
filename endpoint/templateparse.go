package endpoint

import (
	"fmt"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/aiperf-go/aiperf/record"
)

// Parse reads a template-type response as AIPerf's TemplateEndpoint does.
//
// With a response field (TemplateConfig.ResponseField), the JMESPath
// expression selects the data, converted as convertValue says: a string is
// text, a list of numbers one embedding, a list of number lists that many
// embeddings, a list of objects that many rankings (counted in Embeddings,
// as parseRankings does). The field is strict: a message where it is absent
// or null is an error naming the field, unless the run streams (then the
// message is skipped: role and usage chunks carry no content); a present but
// empty or unconvertible value gives ok=false. An expression that fails at
// run time (a function given the wrong type) is an error.
//
// Without one, the data is auto-detected, in AIPerf's order: embeddings
// (data[].embedding of "embedding" objects, or an "embeddings"/"embedding"
// list), rankings (a "rankings" or "results" list), then text (a string, or
// a list of strings joined, in text, content, response, output or result;
// else choices[0].text, .message.content or .delta.content). A top-level
// value that is not an object is converted as with a response field.
//
// A top-level "usage" object of the OpenAI shape is kept when present and
// well-formed; an "error" object or non-empty string gives a *ServerError.
// A body that is not JSON is text (see ParseText).
func (c *templateCodec) Parse(v *fastjson.Value) (resp record.Response, ok bool, err error) {
	if v.Type() == fastjson.TypeObject {
		if ev := present(v.Get("error")); ev != nil && (ev.Type() == fastjson.TypeObject || len(ev.GetStringBytes()) > 0) {
			return resp, false, serverError(v)
		}
		resp.Usage, _ = usage(present(v.Get("usage")))
	}
	if c.field != nil {
		found, err := c.field.Search(toAny(v))
		if err != nil {
			return resp, false, fmt.Errorf("endpoint: response field %q: %w", c.fieldText, err)
		}
		if found == nil {
			if c.streaming {
				return resp, resp.Usage != nil, nil
			}
			return resp, false, fmt.Errorf("endpoint: parse response: response field %q not found", c.fieldText)
		}
		convertAny(&resp, found)
	} else {
		autoDetect(&resp, v)
	}
	return resp, resp.HasContent() || resp.Usage != nil, nil
}

// ParseText reads a body (or stream message) that is not JSON as text, as
// AIPerf does for the template and raw types; empty gives ok=false.
func (c *templateCodec) ParseText(data []byte) (resp record.Response, ok bool, err error) {
	resp.Text = string(data)
	return resp, resp.Text != "", nil
}

// autoDetect fills resp from v by AIPerf's auto_detect_and_extract.
func autoDetect(resp *record.Response, v *fastjson.Value) {
	if v.Type() != fastjson.TypeObject {
		convertValue(resp, v)
		return
	}
	// Embeddings: OpenAI's data list, then the simple shapes.
	if data := v.GetArray("data"); len(data) > 0 && data[0].Type() == fastjson.TypeObject &&
		string(data[0].GetStringBytes("object")) == "embedding" {
		for _, d := range data {
			if d.Type() == fastjson.TypeObject && d.Exists("embedding") {
				resp.Out().Embeddings++
			}
		}
		if resp.Embeddings() > 0 {
			return
		}
	}
	for _, key := range [...]string{"embeddings", "embedding"} {
		list := v.GetArray(key)
		if len(list) == 0 {
			continue
		}
		switch list[0].Type() {
		case fastjson.TypeNumber:
			resp.Out().Embeddings = 1
			return
		case fastjson.TypeArray:
			resp.Out().Embeddings = len(list)
			return
		}
	}
	// Rankings: any list, even empty (which then carries no content).
	for _, key := range [...]string{"rankings", "results"} {
		if f := v.Get(key); f != nil && f.Type() == fastjson.TypeArray {
			resp.Out().Embeddings = len(f.GetArray())
			return
		}
	}
	// Text.
	for _, key := range [...]string{"text", "content", "response", "output", "result"} {
		f := v.Get(key)
		if f == nil {
			continue
		}
		if f.Type() == fastjson.TypeString {
			resp.Text = string(f.GetStringBytes())
			return
		}
		if s, ok := joinStrings(f); ok {
			resp.Text = s
			return
		}
	}
	choices := v.GetArray("choices")
	if len(choices) == 0 || choices[0].Type() != fastjson.TypeObject {
		return
	}
	ch := choices[0]
	for _, path := range [][]string{{"text"}, {"message", "content"}, {"delta", "content"}} {
		if s := ch.GetStringBytes(path...); len(s) > 0 {
			resp.Text = string(s)
			return
		}
	}
}

// joinStrings joins a non-empty list of strings, as AIPerf's "".join.
func joinStrings(v *fastjson.Value) (string, bool) {
	list, err := v.Array()
	if err != nil || len(list) == 0 {
		return "", false
	}
	var b strings.Builder
	for _, item := range list {
		s, err := item.StringBytes()
		if err != nil {
			return "", false
		}
		b.Write(s)
	}
	return b.String(), true
}

// convertValue converts a top-level non-object body as convertAny does.
func convertValue(resp *record.Response, v *fastjson.Value) {
	switch v.Type() {
	case fastjson.TypeString:
		resp.Text = string(v.GetStringBytes())
	case fastjson.TypeArray:
		list := v.GetArray()
		if len(list) == 0 {
			return
		}
		switch f := list[0]; f.Type() {
		case fastjson.TypeNumber:
			resp.Out().Embeddings = 1
		case fastjson.TypeArray:
			if a := f.GetArray(); len(a) > 0 && a[0].Type() == fastjson.TypeNumber {
				resp.Out().Embeddings = len(list)
			}
		case fastjson.TypeObject:
			resp.Out().Embeddings = len(list)
		}
	}
}

// convertAny converts a JMESPath result by AIPerf's
// convert_to_response_data: a string is text; a non-empty list of numbers
// one embedding, of number lists that many embeddings, of objects that many
// rankings; anything else nothing.
func convertAny(resp *record.Response, v any) {
	switch x := v.(type) {
	case string:
		resp.Text = x
	case []any:
		if len(x) == 0 {
			return
		}
		switch f := x[0].(type) {
		case float64:
			resp.Out().Embeddings = 1
		case []any:
			if len(f) > 0 {
				if _, ok := f[0].(float64); ok {
					resp.Out().Embeddings = len(x)
				}
			}
		case map[string]any:
			resp.Out().Embeddings = len(x)
		}
	}
}

// toAny converts v to the encoding/json shapes JMESPath searches (numbers
// as float64).
func toAny(v *fastjson.Value) any {
	switch v.Type() {
	case fastjson.TypeObject:
		o := v.GetObject()
		m := make(map[string]any, o.Len())
		o.Visit(func(key []byte, item *fastjson.Value) { m[string(key)] = toAny(item) })
		return m
	case fastjson.TypeArray:
		list := v.GetArray()
		a := make([]any, len(list))
		for i, item := range list {
			a[i] = toAny(item)
		}
		return a
	case fastjson.TypeString:
		return string(v.GetStringBytes())
	case fastjson.TypeNumber:
		return v.GetFloat64()
	case fastjson.TypeTrue:
		return true
	case fastjson.TypeFalse:
		return false
	default:
		return nil
	}
}

// textParser is implemented by a Codec that reads a body or stream message
// that is not JSON as text instead of failing it (Endpoint.Parse).
type textParser interface {
	ParseText(data []byte) (resp record.Response, ok bool, err error)
}
