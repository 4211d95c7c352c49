package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// request is the part of an OpenAI request body the server reads; other
// fields are ignored.
type request struct {
	Model               string          `json:"model"`
	Messages            []message       `json:"messages"`
	Prompt              json.RawMessage `json:"prompt"`
	Input               json.RawMessage `json:"input"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	IgnoreEOS           bool            `json:"ignore_eos"`
	Stream              bool            `json:"stream"`
	StreamOptions       struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Dimensions int `json:"dimensions"`

	// Fields of the other APIs, read by their framers' prepare.
	Inputs     inputsField `json:"inputs"` // TGI: a string; KServe v2: tensors (kserve.go)
	Parameters struct {
		MaxNewTokens *int `json:"max_new_tokens"`
	} `json:"parameters"` // TGI
	Instructions    string  `json:"instructions"`      // Responses
	MaxOutputTokens *int    `json:"max_output_tokens"` // Responses
	System          content `json:"system"`            // Anthropic: a string or text blocks
	// Triton's generate extension (kserve.go).
	TextInput          json.RawMessage `json:"text_input"`
	SamplingParameters json.RawMessage `json:"sampling_parameters"`
}

// message is one chat message; only its text content matters.
type message struct {
	Content content `json:"content"`
}

// content is a chat message's content: a string, or an array of parts of
// which the "text" ones count.
type content struct {
	texts []string
}

// UnmarshalJSON decodes a string without a second pass through the JSON
// scanner when it has no escapes, the common case for large prompts.
func (c *content) UnmarshalJSON(data []byte) error {
	switch {
	case len(data) >= 2 && data[0] == '"' && bytes.IndexByte(data[1:len(data)-1], '\\') < 0:
		c.texts = []string{string(data[1 : len(data)-1])}
		return nil
	case len(data) > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		c.texts = []string{s}
		return nil
	case bytes.Equal(data, []byte("null")):
		c.texts = nil
		return nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(data, &parts); err != nil {
		return err
	}
	c.texts = c.texts[:0]
	for _, p := range parts {
		if p.Type == "text" {
			c.texts = append(c.texts, p.Text)
		}
	}
	return nil
}

// decodeRequest parses an OpenAI request body.
func decodeRequest(body []byte) (*request, error) {
	req := new(request)
	if err := json.Unmarshal(body, req); err != nil {
		return nil, fmt.Errorf("decode request: %w", err)
	}
	for _, p := range []*int{req.MaxTokens, req.MaxCompletionTokens, req.Parameters.MaxNewTokens, req.MaxOutputTokens} {
		if p != nil && *p < 0 {
			return nil, fmt.Errorf("max tokens %d is negative", *p)
		}
	}
	if req.Dimensions < 0 || req.Dimensions > maxEmbeddingDims {
		return nil, fmt.Errorf("dimensions %d outside [0,%d]", req.Dimensions, maxEmbeddingDims)
	}
	return req, nil
}

// errNoInput reports a prompt or input of an unsupported shape.
var errNoInput = errors.New("prompt/input must be a string, an array of strings, or token ids")

// inputs is a completion prompt or an embeddings input: texts, or token
// ids (one item per array of ids).
type inputs struct {
	texts  []string
	items  [][]int // token-id inputs
	tokens int     // total token ids
}

// count returns the number of inputs.
func (in inputs) count() int { return len(in.texts) + len(in.items) }

// parseInputs decodes the accepted shapes of "prompt" and "input": a
// string, []string, []int or [][]int. An absent field gives no inputs.
func parseInputs(raw json.RawMessage) (inputs, error) {
	raw = bytes.TrimSpace(raw)
	var in inputs
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return in, nil
	}
	var s string
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return in, errNoInput
		}
		in.texts = []string{s}
		return in, nil
	}
	if json.Unmarshal(raw, &in.texts) == nil {
		return in, nil
	}
	in.texts = nil
	var ids []int
	if json.Unmarshal(raw, &ids) == nil {
		in.items = [][]int{ids}
		in.tokens = len(ids)
		return in, nil
	}
	if json.Unmarshal(raw, &in.items) == nil {
		for _, ids := range in.items {
			in.tokens += len(ids)
		}
		return in, nil
	}
	return inputs{}, errNoInput
}

// promptText returns the text whose tokens are the prompt: every text
// joined with single spaces, as AIPerf's client computes input length.
func promptText(texts []string) string {
	if len(texts) == 1 {
		return texts[0]
	}
	return strings.Join(texts, " ")
}

// chatTexts returns the text contents of every message, in order.
func (r *request) chatTexts() []string {
	if len(r.Messages) == 1 {
		return r.Messages[0].Content.texts
	}
	var texts []string
	for _, m := range r.Messages {
		texts = append(texts, m.Content.texts...)
	}
	return texts
}

// tokenPlan is how many tokens a response carries and why it ends.
type tokenPlan struct {
	reasoning int
	content   int
	finish    string // "length" or "stop"
}

// total returns reasoning plus content tokens.
func (p tokenPlan) total() int { return p.reasoning + p.content }

// planTokens applies the request's limits to the configured lengths:
// max_completion_tokens (else max_tokens) bounds reasoning plus content,
// like OpenAI; without a limit the model writes OutputTokens content
// tokens. EOSTokens stops content early unless ignore_eos is set.
func (c *Config) planTokens(r *request, chat bool) tokenPlan {
	limit := r.MaxCompletionTokens
	if limit == nil {
		limit = r.MaxTokens
	}
	p := tokenPlan{content: c.OutputTokens, finish: "stop"}
	if chat {
		p.reasoning = c.ReasoningTokens
	}
	if limit != nil {
		p.reasoning = min(p.reasoning, *limit)
		p.content = *limit - p.reasoning
		p.finish = "length"
	}
	if c.EOSTokens > 0 && !r.IgnoreEOS && c.EOSTokens < p.content {
		p.content = c.EOSTokens
		p.finish = "stop"
	}
	return p
}
