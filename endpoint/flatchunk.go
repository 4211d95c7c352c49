package endpoint

import (
	"bytes"

	"github.com/aiperf-go/aiperf/record"
)

// parseFlat parses a chat or completions payload of the common shape, as
// Parse does, without recursion (see flatScan). done is false when it
// declines: another endpoint type, or anything it does not read exactly as
// Parse would (keys with escapes, repeated keys it reads, a message instead
// of a delta, an object type other than a chunk's, fields of other types,
// numbers it does not count, nesting deeper than flatMaxDepth, invalid
// JSON, error objects); Parse then gives the answer, errors included.
// When done, err would be nil from Parse and resp and ok equal its own.
func (e *Endpoint) parseFlat(data []byte) (resp record.Response, ok, done bool) {
	chat := e.Name == "chat"
	if e.codec != nil || (!chat && e.Name != "completions") {
		return resp, false, false
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "[DONE]" {
		return resp, false, true
	}
	s := flatScan{b: data}
	var f flatFields
	if !s.chunk(&f, chat) || s.i != len(data) {
		return resp, false, false
	}
	if f.object.set {
		object := string(data[f.object.start:f.object.end])
		switch {
		case f.object.esc:
			return resp, false, false
		case chat && object != "chat.completion.chunk":
			return resp, false, false
		case !chat && object != "text_completion":
			return resp, false, false
		}
	}
	var text, reasoning bool
	if resp.Text, text = s.decode(f.text); !text {
		return resp, false, false
	}
	if resp.Reasoning, reasoning = s.decode(f.reasoningContent); !reasoning {
		return resp, false, false
	}
	if resp.Reasoning == "" {
		if resp.Reasoning, reasoning = s.decode(f.reasoning); !reasoning {
			return resp, false, false
		}
	}
	if f.hasUsage && f.usage != (record.Usage{}) {
		u := f.usage
		resp.Usage = &u
	}
	return resp, resp.HasContent() || resp.Usage != nil, true
}

// chunk reads the top-level object into f.
func (s *flatScan) chunk(f *flatFields, chat bool) bool {
	empty, ok := s.open('{', '}')
	if !ok || empty {
		return ok
	}
	var choices, usage, errSeen bool
	for more := true; more; {
		k, ok := s.key()
		if !ok {
			return false
		}
		switch string(k) {
		case "object":
			ok = s.optString(&f.object)
		case "choices":
			ok = !choices && s.choices(f, chat)
			choices = true
		case "usage":
			ok = !usage && s.usage(f)
			usage = true
		case "error":
			ok = !errSeen && s.null()
			errSeen = true
		default:
			ok = s.skip()
		}
		if !ok {
			return false
		}
		if more, ok = s.next('}'); !ok {
			return false
		}
	}
	return true
}

// choices reads the choices array (or null): its first item into f, the
// others skipped.
func (s *flatScan) choices(f *flatFields, chat bool) bool {
	if s.null() {
		return true
	}
	empty, ok := s.open('[', ']')
	if !ok || empty {
		return ok
	}
	if !s.choice(f, chat) {
		return false
	}
	for {
		more, ok := s.next(']')
		if !ok || !more {
			return ok
		}
		if !s.skip() {
			return false
		}
	}
}

// choice reads the first choice: a chat one's delta, a completion's text.
func (s *flatScan) choice(f *flatFields, chat bool) bool {
	empty, ok := s.open('{', '}')
	if !ok || empty {
		return ok
	}
	var delta bool
	for more := true; more; {
		k, ok := s.key()
		if !ok {
			return false
		}
		switch {
		case chat && string(k) == "delta":
			ok = !delta && s.delta(f)
			delta = true
		case chat && string(k) == "message":
			return false // Parse reads it in place of an absent delta
		case !chat && string(k) == "text":
			ok = s.optString(&f.text)
		default:
			ok = s.skip()
		}
		if !ok {
			return false
		}
		if more, ok = s.next('}'); !ok {
			return false
		}
	}
	return true
}

// delta reads a chat delta (or null): content, reasoning_content and
// reasoning.
func (s *flatScan) delta(f *flatFields) bool {
	if s.null() {
		return true
	}
	empty, ok := s.open('{', '}')
	if !ok || empty {
		return ok
	}
	for more := true; more; {
		k, ok := s.key()
		if !ok {
			return false
		}
		switch string(k) {
		case "content":
			ok = s.optString(&f.text)
		case "reasoning_content":
			ok = s.optString(&f.reasoningContent)
		case "reasoning":
			ok = s.optString(&f.reasoning)
		default:
			ok = s.skip()
		}
		if !ok {
			return false
		}
		if more, ok = s.next('}'); !ok {
			return false
		}
	}
	return true
}

// usage reads the usage object (or null) into f.usage: the token counts,
// with completion_tokens_details' reasoning_tokens and
// prompt_tokens_details' cached_tokens.
func (s *flatScan) usage(f *flatFields) bool {
	if s.null() {
		return true
	}
	f.hasUsage = true
	empty, ok := s.open('{', '}')
	if !ok || empty {
		return ok
	}
	u := &f.usage
	var prompt, completion, total, cdetails, pdetails bool
	for more := true; more; {
		k, ok := s.key()
		if !ok {
			return false
		}
		switch string(k) {
		case "prompt_tokens":
			ok = s.count(&u.PromptTokens, &prompt)
		case "completion_tokens":
			ok = s.count(&u.CompletionTokens, &completion)
		case "total_tokens":
			ok = s.count(&u.TotalTokens, &total)
		case "completion_tokens_details":
			ok = s.details("reasoning_tokens", &u.ReasoningTokens, &cdetails)
		case "prompt_tokens_details":
			ok = s.details("cached_tokens", &u.CachedTokens, &pdetails)
		default:
			ok = s.skip()
		}
		if !ok {
			return false
		}
		if more, ok = s.next('}'); !ok {
			return false
		}
	}
	return true
}

// details reads a usage details object (or null): its count name into
// *dst; a repeated key (*seen) is refused.
func (s *flatScan) details(name string, dst **int64, seen *bool) bool {
	if *seen {
		return false
	}
	*seen = true
	if s.null() {
		return true
	}
	empty, ok := s.open('{', '}')
	if !ok || empty {
		return ok
	}
	var counted bool
	for more := true; more; {
		k, ok := s.key()
		if !ok {
			return false
		}
		if string(k) == name {
			ok = s.count(dst, &counted)
		} else {
			ok = s.skip()
		}
		if !ok {
			return false
		}
		if more, ok = s.next('}'); !ok {
			return false
		}
	}
	return true
}
