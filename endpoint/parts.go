package endpoint

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/valyala/fastjson"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/record"
)

// partRenderer renders the content parts of a registered type's message,
// as AIPerf's _render_*_part hooks do. A nil audio or video function makes
// a turn with that medium an error (the type's API takes none): the error
// is audioErr or video.
type partRenderer struct {
	text, image func(b []byte, s string) []byte
	audio       func(b []byte, a string) ([]byte, error)
	video       error // every video turn is an error
	audioErr    error // used when audio is nil
}

// appendPartsMessage appends {"role":…,"content":…} for turn t: a string
// content for one text and no media, else the parts of r (empty strings
// skipped; texts, images, audios, videos in that order), or "" when there
// are none, as AIPerf does.
func appendPartsMessage(b []byte, t *dataset.Turn, r *partRenderer) ([]byte, error) {
	role := t.Role
	if role == "" {
		role = "user"
	}
	b = append(b, `{"role":`...)
	b = pyjson.AppendString(b, role)
	b = append(b, `,"content":`...)
	if len(t.Texts) == 1 && len(t.Images) == 0 && len(t.Audios) == 0 && len(t.Videos) == 0 {
		return append(pyjson.AppendString(b, t.Texts[0]), '}'), nil
	}
	open := len(b)
	b = append(b, '[')
	n := 0
	for _, s := range t.Texts {
		if s != "" {
			b = r.text(sep(b, n), s)
			n++
		}
	}
	for _, u := range t.Images {
		if u != "" {
			b = r.image(sep(b, n), u)
			n++
		}
	}
	for i, a := range t.Audios {
		if a == "" {
			continue
		}
		if r.audio == nil {
			return b, fmt.Errorf("endpoint: turn audio %d: %w", i, r.audioErr)
		}
		var err error
		if b, err = r.audio(sep(b, n), a); err != nil {
			return b, fmt.Errorf("endpoint: turn audio %d: %w", i, err)
		}
		n++
	}
	for i, u := range t.Videos {
		if u != "" {
			return b, fmt.Errorf("endpoint: turn video %d: %w", i, r.video)
		}
	}
	if n == 0 {
		return append(b[:open], `""}`...), nil
	}
	return append(b, "]}"...), nil
}

// appendAudioPart appends {"type":"input_audio","input_audio":{"data",
// "format"}} for "<fmt>,<b64>" or a data:audio URL.
func appendAudioPart(b []byte, a string) ([]byte, error) {
	format, data, err := splitAudio(a)
	if err != nil {
		return b, err
	}
	b = append(b, `{"type":"input_audio","input_audio":{"data":`...)
	b = pyjson.AppendString(b, data)
	b = append(b, `,"format":`...)
	return append(pyjson.AppendString(b, format), "}}"...), nil
}

// openUsage converts a usage object of any of the shapes AIPerf's Usage
// reads (first synonym present wins): prompt_tokens or input_tokens (the
// latter plus cache_read_input_tokens and cache_creation_input_tokens when
// either is present: Anthropic counts cached input apart), completion_tokens
// or output_tokens, total_tokens, reasoning_tokens of
// completion_tokens_details or output_tokens_details, and cached_tokens of
// prompt_tokens_details or input_tokens_details, else
// cache_read_input_tokens. It returns nil when u is absent or has none.
func openUsage(u *fastjson.Value) (*record.Usage, error) {
	if u == nil {
		return nil, nil
	}
	if u.Type() != fastjson.TypeObject {
		return nil, fmt.Errorf("endpoint: parse response: field \"usage\" is %s, not an object", u.Type())
	}
	var r record.Usage
	first := func(v *fastjson.Value, keys ...string) (*int64, string, error) {
		if v == nil || v.Type() != fastjson.TypeObject {
			return nil, "", nil
		}
		for _, k := range keys {
			n, err := count(v, k)
			if err != nil || n != nil {
				return n, k, err
			}
		}
		return nil, "", nil
	}
	var err error
	var key string
	if r.PromptTokens, key, err = first(u, "prompt_tokens", "input_tokens"); err != nil {
		return nil, err
	}
	if key == "input_tokens" {
		read, _, err := first(u, "cache_read_input_tokens")
		if err != nil {
			return nil, err
		}
		created, _, err := first(u, "cache_creation_input_tokens")
		if err != nil {
			return nil, err
		}
		if read != nil || created != nil {
			total := *r.PromptTokens
			for _, c := range []*int64{read, created} {
				if c != nil {
					total += *c
				}
			}
			r.PromptTokens = &total
		}
	}
	if r.CompletionTokens, _, err = first(u, "completion_tokens", "output_tokens"); err != nil {
		return nil, err
	}
	if r.TotalTokens, _, err = first(u, "total_tokens"); err != nil {
		return nil, err
	}
	for _, d := range []string{"completion_tokens_details", "output_tokens_details"} {
		if r.ReasoningTokens, _, err = first(present(u.Get(d)), "reasoning_tokens"); err != nil || r.ReasoningTokens != nil {
			break
		}
	}
	for _, d := range []string{"prompt_tokens_details", "input_tokens_details"} {
		if r.CachedTokens, _, err = first(present(u.Get(d)), "cached_tokens"); err != nil || r.CachedTokens != nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	if r.CachedTokens == nil {
		if r.CachedTokens, _, err = first(u, "cache_read_input_tokens"); err != nil {
			return nil, err
		}
	}
	if r == (record.Usage{}) {
		return nil, nil
	}
	return &r, nil
}

// appendConversation appends, as the next items of a list holding n, the
// history entries (appendHistory) and then the turn's Messages items, or
// else its own message rendered by r ({"role","content"}, with
// "type":"message" added when tag, as for the history).
func appendConversation(b []byte, n *int, history []json.RawMessage, t *dataset.Turn, r *partRenderer, tag bool) ([]byte, error) {
	var err error
	for i, h := range history {
		if b, err = appendHistory(b, n, h, r, tag); err != nil {
			return nil, fmt.Errorf("endpoint: history entry %d: %w", i, err)
		}
	}
	if t.Messages != nil {
		if b, err = appendItems(b, n, t.Messages, true); err != nil {
			return nil, fmt.Errorf("endpoint: turn messages: %w", err)
		}
		return b, nil
	}
	if b, err = appendPartsMessage(sep(b, *n), t, r); err != nil {
		return nil, err
	}
	if tag {
		b = append(b[:len(b)-1], `,"type":"message"}`...)
	}
	return b, nil
}

// appendHistory appends history entry h (a chat message object of
// UserMessage or AssistantMessage, or an array of them) as the next
// item(s) of a list holding n, re-rendered for the type as AIPerf renders
// earlier turns: each object {"role","content"} is written as
// {"role","content"[,"type":"message" when tag]} with its chat content
// parts re-rendered by r (text and image_url parts; other parts, and
// objects with other keys, are kept as they are).
func appendHistory(b []byte, n *int, h []byte, r *partRenderer, tag bool) ([]byte, error) {
	var p fastjson.Parser
	v, err := p.ParseBytes(h)
	if err != nil {
		if len(bytes.TrimSpace(h)) == 0 {
			return b, nil
		}
		return b, err
	}
	items := []*fastjson.Value{v}
	if v.Type() == fastjson.TypeArray {
		items, _ = v.Array()
	}
	for _, item := range items {
		b = sep(b, *n)
		*n++
		o, err := item.Object()
		if err != nil || o.Len() != 2 || item.Get("role") == nil || item.Get("content") == nil {
			b = item.MarshalTo(b)
			continue
		}
		role, err := item.Get("role").StringBytes()
		if err != nil {
			b = item.MarshalTo(b)
			continue
		}
		b = append(b, `{"role":`...)
		b = pyjson.AppendString(b, string(role))
		b = append(b, `,"content":`...)
		b = appendHistoryContent(b, item.Get("content"), r)
		if tag {
			b = append(b, `,"type":"message"`...)
		}
		b = append(b, '}')
	}
	return b, nil
}

// appendHistoryContent appends a chat content value re-rendered by r.
func appendHistoryContent(b []byte, c *fastjson.Value, r *partRenderer) []byte {
	if s, err := c.StringBytes(); err == nil {
		return pyjson.AppendString(b, string(s))
	}
	parts, err := c.Array()
	if err != nil {
		return c.MarshalTo(b)
	}
	b = append(b, '[')
	for i, part := range parts {
		b = sep(b, i)
		switch string(part.GetStringBytes("type")) {
		case "text":
			b = r.text(b, string(part.GetStringBytes("text")))
		case "image_url":
			b = r.image(b, string(part.GetStringBytes("image_url", "url")))
		default:
			b = part.MarshalTo(b)
		}
	}
	return append(b, ']')
}
