package mockserver

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// anthropicFramer frames Anthropic Messages API responses (POST
// /v1/messages). A stream sends message_start (usage.input_tokens) and a
// ping at once; each token chunk as a content_block_delta, thinking_delta
// in block 0 when there is reasoning, then text_delta in the next block,
// each block opened by content_block_start and closed by
// content_block_stop; and at the end message_delta (stop_reason and
// usage.output_tokens) and message_stop. A body is the message with a
// thinking block and a text block. Usage is always sent: the API has no
// way to ask for none.
type anthropicFramer struct{}

var anthropicShape = shape{fr: anthropicFramer{}}

func init() {
	routes = append(routes, route{"POST /v1/messages", func(s *Server) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { s.serveGenerate(w, r, epMessages, &anthropicShape) }
	}})
}

func (anthropicFramer) reasons() bool { return true }

// prepare takes the prompt from system and the messages' text, and
// requires max_tokens, as the API does.
func (anthropicFramer) prepare(r *request) ([]string, error) {
	if r.MaxTokens == nil {
		return nil, errors.New("max_tokens: field required")
	}
	r.MaxCompletionTokens = nil
	return append(append([]string(nil), r.System.texts...), r.chatTexts()...), nil
}

// appendAnthropicEvent appends "event: typ\ndata: {"type":"typ"" and
// leaves the object open.
func appendAnthropicEvent(b []byte, typ string) []byte {
	b = append(b, "event: "...)
	b = append(b, typ...)
	b = append(b, "\ndata: {\"type\":\""...)
	b = append(b, typ...)
	return append(b, '"')
}

// appendMessageHead appends the message object up to its content list.
func appendMessageHead(b []byte, g *generation) []byte {
	b = append(b, `{"id":"msg_`...)
	b = strconv.AppendUint(b, g.seq, 16)
	b = append(b, `","type":"message","role":"assistant","model":`...)
	b = pyjson.AppendString(b, g.req.Model)
	return append(b, `,"content":[`...)
}

func (anthropicFramer) start(b []byte, g *generation) []byte {
	b = appendAnthropicEvent(b, "message_start")
	b = append(b, `,"message":`...)
	b = appendMessageHead(b, g)
	b = append(b, `],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`...)
	b = strconv.AppendInt(b, int64(g.usage.prompt), 10)
	b = append(b, ",\"output_tokens\":1}}}\n\n"...)
	b = appendAnthropicEvent(b, "ping")
	return append(b, "}\n\n"...)
}

// appendBlockEdge appends content_block_stop (stop) or content_block_start
// of a block of kind typ at index i.
func appendBlockEdge(b []byte, i int, stop bool, typ string) []byte {
	if stop {
		b = appendAnthropicEvent(b, "content_block_stop")
		b = append(b, `,"index":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		return append(b, "}\n\n"...)
	}
	b = appendAnthropicEvent(b, "content_block_start")
	b = append(b, `,"index":`...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, `,"content_block":{"type":"`...)
	b = append(b, typ...)
	b = append(b, `","`...)
	b = append(b, typ...)
	return append(b, "\":\"\"}}\n\n"...)
}

// textBlock is the index of the text block.
func textBlock(g *generation) int {
	if g.rEvents > 0 {
		return 1
	}
	return 0
}

func (anthropicFramer) token(b []byte, g *generation, k, field, from, count int, _ bool) []byte {
	block, delta, key := textBlock(g), "text_delta", "text"
	switch {
	case field == fieldReasoning:
		block, delta, key = 0, "thinking_delta", "thinking"
		if k == 0 {
			b = appendBlockEdge(b, 0, false, "thinking")
		}
	case k == g.rEvents:
		if k > 0 {
			b = appendBlockEdge(b, 0, true, "")
		}
		b = appendBlockEdge(b, block, false, "text")
	}
	b = appendAnthropicEvent(b, "content_block_delta")
	b = append(b, `,"index":`...)
	b = strconv.AppendInt(b, int64(block), 10)
	b = append(b, `,"delta":{"type":"`...)
	b = append(b, delta...)
	b = append(b, `","`...)
	b = append(b, key...)
	b = append(b, `":"`...)
	b = words.appendTokens(b, from, count)
	return append(b, "\"}}\n\n"...)
}

func (anthropicFramer) end(b []byte, g *generation) []byte {
	last := textBlock(g)
	if g.nEvents == g.rEvents && g.rEvents > 0 {
		last = 0 // reasoning only: the text block never opened
	}
	b = appendBlockEdge(b, last, true, "")
	b = appendAnthropicEvent(b, "message_delta")
	b = append(b, `,"delta":{"stop_reason":"`...)
	b = append(b, anthropicStop(g.plan.finish)...)
	b = append(b, `","stop_sequence":null},"usage":{"output_tokens":`...)
	b = strconv.AppendInt(b, int64(g.usage.completion), 10)
	b = append(b, "}}\n\n"...)
	b = appendAnthropicEvent(b, "message_stop")
	return append(b, "}\n\n"...)
}

func (anthropicFramer) body(b []byte, g *generation) []byte {
	b = appendMessageHead(b, g)
	if g.plan.reasoning > 0 {
		b = append(b, `{"type":"thinking","thinking":"`...)
		b = words.appendTokens(b, g.start, g.plan.reasoning)
		b = append(b, `","signature":"mock"},`...)
	}
	b = append(b, `{"type":"text","text":"`...)
	b = words.appendTokens(b, g.start+g.plan.reasoning, g.plan.content)
	b = append(b, `"}],"stop_reason":"`...)
	b = append(b, anthropicStop(g.plan.finish)...)
	b = append(b, `","stop_sequence":null,"usage":{"input_tokens":`...)
	b = strconv.AppendInt(b, int64(g.usage.prompt), 10)
	b = append(b, `,"output_tokens":`...)
	b = strconv.AppendInt(b, int64(g.usage.completion), 10)
	return append(b, "}}"...)
}

// anthropicStop maps a plan's finish reason to Anthropic's stop_reason.
func anthropicStop(finish string) string {
	if finish == "length" {
		return "max_tokens"
	}
	return "end_turn"
}
