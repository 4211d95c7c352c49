package endpoint

import (
	"bytes"
	"encoding/json"
	"fmt"

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

// wire is the union of the response shapes Parse reads; every other field is
// skipped by the decoder.
type wire struct {
	Object  string       `json:"object"`
	Choices []wireChoice `json:"choices"`
	Usage   *wireUsage   `json:"usage"`
	Data    []wireDatum  `json:"data"`
	// Error, Type and Message are read only for the two server error
	// shapes, so they are kept raw: a foreign field of that name in a normal
	// response must not fail the decode.
	Error   json.RawMessage `json:"error"`
	Type    json.RawMessage `json:"type"`
	Message json.RawMessage `json:"message"`
}

type wireChoice struct {
	Delta   *wireMessage `json:"delta"`
	Message *wireMessage `json:"message"`
	Text    string       `json:"text"`
}

// wireMessage is a chat message or delta; a null field decodes as "".
type wireMessage struct {
	Content          string `json:"content"`
	ReasoningContent string `json:"reasoning_content"`
	Reasoning        string `json:"reasoning"`
}

type wireUsage struct {
	PromptTokens            *int64 `json:"prompt_tokens"`
	CompletionTokens        *int64 `json:"completion_tokens"`
	TotalTokens             *int64 `json:"total_tokens"`
	CompletionTokensDetails *struct {
		ReasoningTokens *int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	PromptTokensDetails *struct {
		CachedTokens *int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

type wireDatum struct {
	Object string `json:"object"`
}

// Parse parses one SSE data payload (streaming) or a whole response body
// (non-streaming). It leaves resp.PerfNS zero: the caller stamps it.
//
// ok is false when the payload carries no data: empty, "[DONE]", an object
// type foreign to the endpoint, or neither content, reasoning, embeddings
// nor usage (role-only and empty chunks). A usage-only chunk gives ok=true
// with no content. Malformed JSON, or JSON of the wrong shape, gives an
// error; an error object from the server gives a *ServerError. A missing
// "object" is inferred from the shape (choices[0].delta is a chunk,
// choices[0].message a completion).
func (e *Endpoint) Parse(data []byte) (resp record.Response, ok bool, err error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "[DONE]" {
		return resp, false, nil
	}
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		return resp, false, fmt.Errorf("endpoint: parse response: %w", err)
	}
	if w.Object == "error" || (len(w.Error) > 0 && string(w.Error) != "null") {
		return resp, false, w.serverError()
	}
	switch e.Name {
	case "chat":
		var m *wireMessage
		if len(w.Choices) > 0 {
			c := &w.Choices[0]
			switch w.Object {
			case "chat.completion.chunk":
				m = c.Delta
			case "chat.completion":
				m = c.Message
			case "":
				m = c.Delta
				if m == nil {
					m = c.Message
				}
			default:
				return resp, false, nil
			}
		} else if w.Object != "" && w.Object != "chat.completion.chunk" && w.Object != "chat.completion" {
			return resp, false, nil
		}
		if m != nil {
			resp.Text = m.Content
			resp.Reasoning = m.ReasoningContent
			if resp.Reasoning == "" {
				resp.Reasoning = m.Reasoning
			}
		}
	case "completions":
		if w.Object != "" && w.Object != "text_completion" {
			return resp, false, nil
		}
		if len(w.Choices) > 0 {
			resp.Text = w.Choices[0].Text
		}
	case "embeddings":
		if w.Object != "" && w.Object != "list" {
			return resp, false, nil
		}
		for _, d := range w.Data {
			if d.Object == "embedding" || d.Object == "" {
				resp.Embeddings++
			}
		}
	default:
		return resp, false, fmt.Errorf("endpoint: no parser for type %q", e.Name)
	}
	resp.Usage = w.Usage.record()
	ok = resp.HasContent() || resp.Usage != nil
	return resp, ok, nil
}

// record converts the wire usage, returning nil when it is absent or has no
// known field.
func (u *wireUsage) record() *record.Usage {
	if u == nil {
		return nil
	}
	r := record.Usage{
		PromptTokens:     u.PromptTokens,
		CompletionTokens: u.CompletionTokens,
		TotalTokens:      u.TotalTokens,
	}
	if d := u.CompletionTokensDetails; d != nil {
		r.ReasoningTokens = d.ReasoningTokens
	}
	if d := u.PromptTokensDetails; d != nil {
		r.CachedTokens = d.CachedTokens
	}
	if r == (record.Usage{}) {
		return nil
	}
	return &r
}

// serverError extracts type and message from either error shape; an error
// field may be an object or a plain string. Fields of other types are
// ignored.
func (w *wire) serverError() *ServerError {
	se := &ServerError{}
	_ = json.Unmarshal(w.Type, &se.Type)
	_ = json.Unmarshal(w.Message, &se.Message)
	var obj struct {
		Message json.RawMessage `json:"message"`
		Type    json.RawMessage `json:"type"`
	}
	var str string
	switch {
	case json.Unmarshal(w.Error, &str) == nil:
		se.Message = str
	case json.Unmarshal(w.Error, &obj) == nil:
		_ = json.Unmarshal(obj.Type, &se.Type)
		_ = json.Unmarshal(obj.Message, &se.Message)
	}
	if se.Message == "" {
		se.Message = "unknown error"
	}
	return se
}
