package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/record"
	"github.com/aiperf-go/aiperf/tokenizer"
)

// session is one conversation being replayed. Its turns go out in order,
// each after the previous reply plus the turn's delay, from one sender slot
// and with one X-Correlation-ID (sticky routing, §5.2). A session belongs to
// the goroutine that sends its current turn; it is handed on, never shared.
type session struct {
	conv   int                   // index into run.convs
	c      *dataset.Conversation // run.convs[conv]
	num    int                   // session_num: the order sessions started in the run
	slot   int                   // the sender slot (worker) of every turn
	corrID string                // X-Correlation-ID of every turn
	turn   int                   // the next turn to send
	turns  int                   // how many of c's turns it sends (the first ones)
	url    int                   // index of the --url every turn goes to (run.urlIndex)
	// history holds the chat messages of the turns sent so far (user turn,
	// then the live assistant reply) when the conversation accumulates.
	history []json.RawMessage
	// historyTexts holds the texts of history's messages in order, kept
	// when the run counts a turn's input with its history (countsHistory).
	historyTexts []string
	// lastEnd is when the previous turn finished (monotonic ns); 0 before
	// the first turn.
	lastEnd int64
}

// sessionCounter numbers the sessions of a run in the order they start.
type sessionCounter struct{ n atomic.Int64 }

// start returns a new session on conversation conv of r.
func (sc *sessionCounter) start(r *run, conv int) *session {
	num := int(sc.n.Add(1)) - 1
	c := &r.convs[conv]
	return &session{conv: conv, c: c, num: num, corrID: uuid.NewString(), turns: len(c.Turns), url: r.urlIndex(num)}
}

// startNum returns a new session on conversation conv of r numbered num
// (a shard's global session number).
func (sc *sessionCounter) startNum(r *run, conv, num int) *session {
	c := &r.convs[conv]
	return &session{conv: conv, c: c, num: num, corrID: uuid.NewString(), turns: len(c.Turns), url: r.urlIndex(num)}
}

// done reports whether every turn of the session has been sent.
func (s *session) done() bool { return s.turn >= s.turns }

// nextTurn returns the turn the session sends next.
func (s *session) nextTurn() *dataset.Turn { return &s.c.Turns[s.turn] }

// readyAt returns when the session's next turn may be sent (monotonic ns):
// the previous turn's end plus the turn's delay, or, for a first turn with a
// delay (single_turn rows), now plus the delay.
func (s *session) readyAt(now int64) int64 {
	t := s.nextTurn()
	if t.DelayMS <= 0 {
		return max(now, s.lastEnd)
	}
	d := int64(t.DelayMS * float64(time.Millisecond))
	if s.lastEnd == 0 {
		return now + d
	}
	return s.lastEnd + d
}

// waitReady sleeps until the session's next turn may be sent, or ctx ends.
func (s *session) waitReady(ctx context.Context, clock *record.Clock) {
	now := clock.Now()
	if at := s.readyAt(now); at > now {
		coarseSleep(ctx, time.Duration(at-now))
	}
}

// accumulates reports whether the conversation's requests carry the
// history of earlier turns, which makes their payloads depend on live
// replies.
func (r *run) accumulates(conv int) bool {
	c := &r.convs[conv]
	if len(c.Turns) < 2 || r.ep.Name != "chat" {
		return false
	}
	return c.ContextMode == "" || c.ContextMode == dataset.DeltasWithoutResponses || c.ContextMode == dataset.DeltasWithResponses
}

// payload returns the body of the session's next turn: prebuilt when it
// does not depend on earlier replies, else built now from the history.
func (r *run) payload(s *session) ([]byte, error) {
	if ps := r.payloads[s.conv]; ps != nil && ps[s.turn] != nil {
		return ps[s.turn], nil
	}
	return r.ep.Request(s.c, s.turn, s.history, r.epOpts)
}

// finishTurn records what the session needs after a turn: its end time and,
// when the conversation accumulates, the turn's user message and the live
// reply (or, for canned-reply datasets, nothing: the next turn carries it).
func (r *run) finishTurn(s *session, rec *record.Record) {
	t := s.nextTurn()
	s.lastEnd = r.clock.Now()
	if rec.EndNS > 0 {
		s.lastEnd = rec.EndNS
	}
	if r.accumulates(s.conv) {
		counts := r.countsHistory()
		s.history = append(s.history, r.ep.UserMessage(t))
		if counts {
			s.historyTexts = append(s.historyTexts, t.Resolved().Texts...)
		}
		if s.c.ContextMode != dataset.DeltasWithResponses {
			reply := replyText(rec)
			s.history = append(s.history, endpoint.AssistantMessage(reply))
			if counts {
				s.historyTexts = append(s.historyTexts, reply)
			}
		}
	}
	s.turn++
}

// countsHistory reports whether a turn's input_sequence_length counts
// everything its body carries, as AIPerf 0.13 (schema 1.4) does: it
// tokenizes the texts of every message of the body sent (system prompt,
// user context, earlier user turns and replies, then the turn's own),
// joined with " ". Schema 1.0 keeps
// AIPerf 0.8's count of the turn's own texts, and server token counts need
// neither.
func (r *run) countsHistory() bool {
	return r.mcfg.Schema14 && !r.mcfg.UseServerTokenCount && r.mcfg.Tokenizer != nil
}

// historyInput returns the text whose count is the input_sequence_length of
// the session's next turn when the run counts the whole body (counts:
// countsHistory) and the turn carries more than its own texts: the
// conversation's system prompt and user context when the endpoint sends
// them (withContext: Endpoint.SendsContext), the history, then the turn's
// texts, joined with " " as AIPerf 0.13 joins the texts it extracts from
// the body. Else "": the turn's own count stands.
func (s *session) historyInput(counts, withContext bool) string {
	if !counts {
		return ""
	}
	var context []string
	if withContext {
		for _, t := range []string{s.c.SystemPrompt, s.c.UserContext} {
			if t != "" {
				context = append(context, t)
			}
		}
	}
	if len(s.historyTexts) == 0 && len(context) == 0 {
		return ""
	}
	texts := make([]string, 0, len(context)+len(s.historyTexts)+1)
	texts = append(texts, context...)
	texts = append(append(texts, s.historyTexts...), s.nextTurn().Resolved().Texts...)
	return strings.Join(texts, " ")
}

// countInput counts a record's InputText (historyInput) into its
// InputTokens and drops the text. The compute workers call it, so that a
// long conversation's count does not delay the sends.
func countInput(tok tokenizer.Tokenizer, rec *record.Record) {
	if rec.InputText != "" {
		rec.InputTokens, rec.InputText = tok.Count(rec.InputText), ""
	}
}

// replyText is the assistant text of a response: every chunk's text joined.
func replyText(rec *record.Record) string {
	if len(rec.Responses) == 1 {
		return rec.Responses[0].Text
	}
	var b strings.Builder
	for i := range rec.Responses {
		b.WriteString(rec.Responses[i].Text)
	}
	return b.String()
}

// prebuildLimit bounds the prompt text whose payloads are built before the
// run: larger datasets (long traces) build each body when it is sent, so
// that the bodies do not double the dataset's memory, nor hold the whole
// text of a trace whose prompts are lazy (dataset.LazyText).
var prebuildLimit = 64 << 20

// prebuildPayloads builds, for datasets under prebuildLimit, every payload
// that does not depend on live replies (all of them for single-turn
// conversations). The others are built at send time.
func (r *run) prebuildPayloads() error {
	r.payloads = make([][][]byte, len(r.convs))
	size := 0
	for i := range r.convs {
		for t := range r.convs[i].Turns {
			size += r.convs[i].Turns[t].TextLen()
		}
	}
	if size > prebuildLimit {
		return nil
	}
	for i := range r.convs {
		c := &r.convs[i]
		acc := r.accumulates(i)
		r.payloads[i] = make([][]byte, len(c.Turns))
		for ti := range c.Turns {
			if acc && ti > 0 {
				continue
			}
			p, err := r.ep.Request(c, ti, nil, r.epOpts)
			if err != nil {
				return fmt.Errorf("payload for %s turn %d: %w", c.SessionID, ti, err)
			}
			r.payloads[i][ti] = p
		}
	}
	return nil
}

// storedPayloads returns the payloads inputs.json stores for conversation
// conv: every turn, secret extra inputs redacted, built with the earlier
// user turns as history but no replies, which the run cannot know in
// advance.
func (r *run) storedPayloads(conv int) ([]json.RawMessage, error) {
	c := &r.convs[conv]
	acc := r.accumulates(conv)
	out := make([]json.RawMessage, len(c.Turns))
	var history []json.RawMessage
	for ti := range c.Turns {
		// A prebuilt body is the stored one unless secrets are redacted.
		if ps := r.payloads[conv]; r.storedOpts == r.epOpts && ps != nil && ps[ti] != nil {
			out[ti] = ps[ti]
		} else {
			p, err := r.ep.Request(c, ti, history, r.storedOpts)
			if err != nil {
				return nil, fmt.Errorf("payload for %s turn %d: %w", c.SessionID, ti, err)
			}
			out[ti] = p
		}
		if acc {
			history = append(history, r.ep.UserMessage(&c.Turns[ti]))
		}
	}
	return out, nil
}
