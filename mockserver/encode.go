package mockserver

import (
	"strconv"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// Responses are built by appending to byte slices rather than with
// encoding/json: the shapes are fixed, the generated words never need
// escaping, and this keeps a streamed event to a few hundred nanoseconds.

// usage is a response's token accounting.
type usage struct {
	prompt, completion, reasoning int
}

// appendUsage appends the OpenAI usage object.
func appendUsage(b []byte, u usage) []byte {
	b = append(b, `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(u.prompt), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(u.completion), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(u.prompt+u.completion), 10)
	b = append(b, `,"completion_tokens_details":{"reasoning_tokens":`...)
	b = strconv.AppendInt(b, int64(u.reasoning), 10)
	return append(b, `}}`...)
}

// appendFinish appends a JSON finish_reason value: null or a string.
func appendFinish(b []byte, finish string) []byte {
	if finish == "" {
		return append(b, "null"...)
	}
	return append(append(append(b, '"'), finish...), '"')
}

// shape holds what differs between chat and completion responses. A shape
// with a framer (TGI, Responses, Anthropic) builds its events and bodies
// with it instead, on the same generation and timing.
type shape struct {
	idPrefix    string // "chatcmpl-" or "cmpl-"
	object      string // non-streaming object
	chunkObject string // streaming object
	chat        bool
	fr          framer // nil for chat and completions
}

// framer writes the events and bodies of an API that is not OpenAI's chat
// or completions. Each method appends to b and returns it.
type framer interface {
	// start appends the events sent as soon as a stream begins (none: b).
	start(b []byte, g *generation) []byte
	// token appends token event k, whose field carries words [from,
	// from+count) of the cycle, with any framing due before it (k == 0
	// opens the first content block); last is true for the final event.
	token(b []byte, g *generation, k, field, from, count int, last bool) []byte
	// end appends the events that close the stream, usage among them.
	end(b []byte, g *generation) []byte
	// body appends the whole non-streaming response.
	body(b []byte, g *generation) []byte
	// reasons reports whether reasoning tokens are generated.
	reasons() bool
	// prepare reads the API's own request fields: it returns the prompt
	// texts and sets the request's limit (MaxTokens) and Stream.
	prepare(r *request) ([]string, error)
}

var (
	chatShape       = shape{idPrefix: "chatcmpl-", object: "chat.completion", chunkObject: "chat.completion.chunk", chat: true}
	completionShape = shape{idPrefix: "cmpl-", object: "text_completion", chunkObject: "text_completion"}
)

// appendHead appends `{"id":…,"object":…,"created":…,"model":…,"choices":[`.
func (sh *shape) appendHead(b []byte, object string, seq uint64, created int64, model string) []byte {
	b = append(b, `{"id":"`...)
	b = append(b, sh.idPrefix...)
	b = strconv.AppendUint(b, seq, 16)
	b = append(b, `","object":"`...)
	b = append(b, object...)
	b = append(b, `","created":`...)
	b = strconv.AppendInt(b, created, 10)
	b = append(b, `,"model":`...)
	b = pyjson.AppendString(b, model)
	return append(b, `,"choices":[`...)
}

// Text fields of a streamed choice.
const (
	fieldRole      = iota // role-only chunk
	fieldReasoning        // reasoning_content delta
	fieldContent          // content delta or completion text
)

// appendChunkChoice appends one streamed choice whose field carries words
// [from, from+count) of the cycle.
func (sh *shape) appendChunkChoice(b []byte, field, from, count int, finish string) []byte {
	if sh.chat {
		b = append(b, `{"index":0,"delta":{`...)
		switch field {
		case fieldRole:
			b = append(b, `"role":"assistant","content":""`...)
		case fieldReasoning:
			b = append(b, `"reasoning_content":"`...)
			b = append(words.appendTokens(b, from, count), '"')
		default:
			b = append(b, `"content":"`...)
			b = append(words.appendTokens(b, from, count), '"')
		}
		b = append(b, `},"logprobs":null,"finish_reason":`...)
	} else {
		b = append(b, `{"index":0,"text":"`...)
		b = append(words.appendTokens(b, from, count), '"')
		b = append(b, `,"logprobs":null,"finish_reason":`...)
	}
	b = appendFinish(b, finish)
	return append(b, '}')
}

// appendBodyChoice appends the single choice of a non-streaming response,
// with the generated words of p starting at word start.
func (sh *shape) appendBodyChoice(b []byte, p tokenPlan, start int) []byte {
	if sh.chat {
		b = append(b, `{"index":0,"message":{"role":"assistant","content":"`...)
		b = words.appendTokens(b, start+p.reasoning, p.content)
		b = append(b, '"')
		if p.reasoning > 0 {
			b = append(b, `,"reasoning_content":"`...)
			b = words.appendTokens(b, start, p.reasoning)
			b = append(b, '"')
		}
		b = append(b, `},"logprobs":null,"finish_reason":`...)
	} else {
		b = append(b, `{"index":0,"text":"`...)
		b = words.appendTokens(b, start, p.content)
		b = append(b, `","logprobs":null,"finish_reason":`...)
	}
	b = appendFinish(b, p.finish)
	return append(b, '}')
}

// appendError appends an OpenAI-style error body.
func appendError(b []byte, status int, typ, msg string) []byte {
	b = append(b, `{"error":{"message":`...)
	b = pyjson.AppendString(b, msg)
	b = append(b, `,"type":"`...)
	b = append(b, typ...)
	b = append(b, `","param":null,"code":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	return append(b, "}}"...)
}
