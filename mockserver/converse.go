package mockserver

import (
	"strconv"
	"time"
)

// converseFramer frames Bedrock Converse responses. A stream (written as
// SSE "event: T\ndata: D" pairs that the route's eventWriter turns into
// event stream frames of type T) sends messageStart at once; each token
// chunk as a contentBlockDelta, reasoningContent deltas in block 0 when
// there is reasoning, then text deltas in the next block, a
// contentBlockStop between them; and at the end contentBlockStop,
// messageStop (stopReason) and metadata (usage, metrics). A body is the
// message with a reasoningContent block and a text block. Usage is always
// sent, as Bedrock does.
type converseFramer struct{}

var converseShape = shape{fr: converseFramer{}}

func (converseFramer) reasons() bool { return true }

// prepare reads the chat request serveConverse rewrote the body into.
func (converseFramer) prepare(r *request) ([]string, error) {
	r.MaxCompletionTokens = nil
	return r.chatTexts(), nil
}

// appendConverseEvent appends "event: typ\ndata: " (the payload follows).
func appendConverseEvent(b []byte, typ string) []byte {
	b = append(b, "event: "...)
	b = append(b, typ...)
	return append(b, "\ndata: "...)
}

// appendBlockStop appends a contentBlockStop event of block i.
func appendBlockStop(b []byte, i int) []byte {
	b = appendConverseEvent(b, "contentBlockStop")
	b = append(b, `{"contentBlockIndex":`...)
	b = strconv.AppendInt(b, int64(i), 10)
	return append(b, "}\n\n"...)
}

func (converseFramer) start(b []byte, _ *generation) []byte {
	b = appendConverseEvent(b, "messageStart")
	return append(b, "{\"role\":\"assistant\"}\n\n"...)
}

func (converseFramer) token(b []byte, g *generation, k, field, from, count int, _ bool) []byte {
	block := textBlock(g)
	if field == fieldReasoning {
		block = 0
	} else if k == g.rEvents && k > 0 {
		b = appendBlockStop(b, 0)
	}
	b = appendConverseEvent(b, "contentBlockDelta")
	b = append(b, `{"contentBlockIndex":`...)
	b = strconv.AppendInt(b, int64(block), 10)
	if field == fieldReasoning {
		b = append(b, `,"delta":{"reasoningContent":{"text":"`...)
		b = words.appendTokens(b, from, count)
		return append(b, "\"}}}\n\n"...)
	}
	b = append(b, `,"delta":{"text":"`...)
	b = words.appendTokens(b, from, count)
	return append(b, "\"}}\n\n"...)
}

func (converseFramer) end(b []byte, g *generation) []byte {
	last := textBlock(g)
	if g.nEvents == g.rEvents && g.rEvents > 0 {
		last = 0 // reasoning only: the text block never opened
	}
	b = appendBlockStop(b, last)
	b = appendConverseEvent(b, "messageStop")
	b = append(b, `{"stopReason":"`...)
	b = append(b, anthropicStop(g.plan.finish)...)
	b = append(b, "\"}\n\n"...)
	b = appendConverseEvent(b, "metadata")
	b = appendConverseUsage(append(b, `{"usage":`...), g)
	return append(b, "}\n\n"...)
}

func (converseFramer) body(b []byte, g *generation) []byte {
	b = append(b, `{"output":{"message":{"role":"assistant","content":[`...)
	if g.plan.reasoning > 0 {
		b = append(b, `{"reasoningContent":{"reasoningText":{"text":"`...)
		b = words.appendTokens(b, g.start, g.plan.reasoning)
		b = append(b, `","signature":"mock"}}},`...)
	}
	b = append(b, `{"text":"`...)
	b = words.appendTokens(b, g.start+g.plan.reasoning, g.plan.content)
	b = append(b, `"}]}},"stopReason":"`...)
	b = append(b, anthropicStop(g.plan.finish)...)
	b = appendConverseUsage(append(b, `","usage":`...), g)
	return append(b, '}')
}

// appendConverseUsage appends the usage object and the metrics member.
func appendConverseUsage(b []byte, g *generation) []byte {
	b = append(b, `{"inputTokens":`...)
	b = strconv.AppendInt(b, int64(g.usage.prompt), 10)
	b = append(b, `,"outputTokens":`...)
	b = strconv.AppendInt(b, int64(g.usage.completion), 10)
	b = append(b, `,"totalTokens":`...)
	b = strconv.AppendInt(b, int64(g.usage.prompt+g.usage.completion), 10)
	b = append(b, `},"metrics":{"latencyMs":`...)
	b = strconv.AppendInt(b, time.Since(g.arrival).Milliseconds(), 10)
	return append(b, '}')
}
