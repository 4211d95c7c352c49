package custom

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
)

func loadMulti(t *testing.T, lines ...string) (*dataset.Dataset, error) {
	t.Helper()
	return Load(context.Background(), jsonlOptions(t, writeJSONL(t, "c.jsonl", strings.Join(lines, "\n")), "multi_turn"))
}

func TestMultiTurnBadLines(t *testing.T) {
	tests := []struct {
		name, line, field, msg string
	}{
		{"no turns", `{"session_id": "s"}`, "turns", "needs a list of turns"},
		{"single_turn record", `{"text": "a"}`, "turns", "set --custom-dataset-type single_turn"},
		{"empty turns", `{"turns": []}`, "turns", "at least one turn"},
		{"turns object", `{"turns": {"text": "a"}}`, "turns", "must be an array"},
		{"turn not object", `{"turns": [{"text": "a"}, "b"]}`, "turns[1]", "must be an object, got a string"},
		{"turn without content", `{"turns": [{"text": "a"}, {"delay": 5}]}`, "turns[1]", "needs content"},
		{"turn wrong type", `{"turns": [{"text": 1}]}`, "turns[0].text", "must be a string"},
		{"turn timestamp and delay", `{"turns": [{"text": "a", "timestamp": 1, "delay": 2}]}`, "turns[0].delay", "cannot be set together"},
		{"turn output_length", `{"turns": [{"text": "a", "output_length": -1}]}`, "turns[0].output_length", "must be > 0"},
		{"session_id number", `{"session_id": 1, "turns": [{"text": "a"}]}`, "session_id", "must be a string"},
		{"wrong type", `{"type": "single_turn", "turns": [{"text": "a"}]}`, "type", "in a multi_turn record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadMulti(t, `{"turns": [{"text": "ok"}]}`, tt.line)
			fe := fileError(t, err)
			got := fe.Lines[0]
			if fe.Total != 1 || got.Line != 2 || got.Field != tt.field || !strings.Contains(got.Msg, tt.msg) {
				t.Errorf("got line %d field %q: %q (total %d); want field %q: …%s…", got.Line, got.Field, got.Msg, fe.Total, tt.field, tt.msg)
			}
		})
	}
}

func TestMultiTurnConversations(t *testing.T) {
	o := jsonlOptions(t, writeJSONL(t, "c.jsonl", strings.Join([]string{
		`{"session_id": "chat_1", "turns": [{"role": "system", "text": "Be brief."}, {"text": "What is ML?"}, {"text": "Give an example", "delay": 2000}]}`,
		`{"turns": [{"text": "solo"}]}`,
		`{"session_id": "chat_1", "turns": [{"text": "More?", "output_length": 9}]}`,
		`{"session_id": "sys_only", "turns": [{"role": "system", "text": "alone"}]}`,
		`{"session_id": "sys_media", "turns": [{"role": "system", "text": "s", "image": "https://h/i.png"}, {"text": "q"}]}`,
		`{"session_id": "sys_delay", "turns": [{"role": "system", "text": "s", "delay": 1}, {"text": "q"}]}`,
	}, "\n")), "")
	o.Models = []string{"a", "b"}
	d, err := Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	type turn struct {
		role, text, model string
		delay             float64
		maxTokens         int
	}
	type conv struct {
		id, system string
		turns      []turn
	}
	var got []conv
	for _, c := range d.Conversations {
		if c.ContextMode != dataset.DeltasWithoutResponses {
			t.Errorf("%s: context mode %q", c.SessionID, c.ContextMode)
		}
		cv := conv{id: c.SessionID, system: c.SystemPrompt}
		for _, tr := range c.Turns {
			cv.turns = append(cv.turns, turn{tr.Role, strings.Join(tr.Texts, "|"), tr.Model, tr.DelayMS, tr.MaxTokens})
		}
		got = append(got, cv)
	}
	// Models go round robin over the turns, in conversation order.
	want := []conv{
		{"chat_1", "Be brief.", []turn{{"user", "What is ML?", "a", 0, 0}, {"user", "Give an example", "b", 2000, 0}, {"user", "More?", "a", 0, 9}}},
		{"session_000000", "", []turn{{"user", "solo", "b", 0, 0}}},
		{"sys_only", "", []turn{{"system", "alone", "a", 0, 0}}},
		{"sys_media", "", []turn{{"system", "s", "b", 0, 0}, {"user", "q", "a", 0, 0}}},
		{"sys_delay", "", []turn{{"system", "s", "b", 1, 0}, {"user", "q", "a", 0, 0}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if d.Timed || d.Sampling != dataset.SamplingSequential {
		t.Errorf("timed %v sampling %q", d.Timed, d.Sampling)
	}
}

func TestMultiTurnSchedule(t *testing.T) {
	d, err := loadMulti(t,
		`{"session_id": "a", "turns": [{"text": "1", "timestamp": 0}, {"text": "2", "delay": 50}]}`,
		`{"session_id": "b", "turns": [{"text": "1", "timestamp": 10}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Timed || d.Conversations[0].Turns[1].DelayMS != 50 || d.Conversations[1].Turns[0].TimestampMS != 10 {
		t.Errorf("got %+v", d)
	}
	_, err = loadMulti(t,
		`{"session_id": "a", "turns": [{"text": "1", "timestamp": 0}]}`,
		`{"session_id": "b", "turns": [{"text": "1"}, {"text": "2", "timestamp": 5}]}`)
	fe := fileError(t, err)
	if fe.Total != 1 || fe.Lines[0].Line != 2 || fe.Lines[0].Field != "turns[0].timestamp" {
		t.Errorf("got %v", fe)
	}
}
