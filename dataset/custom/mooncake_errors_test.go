package custom

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestMooncakeBadLines checks that every malformed row is reported with its
// line and field, and that a bad file loads nothing.
func TestMooncakeBadLines(t *testing.T) {
	tests := []struct {
		name, line, field, msg string
	}{
		{"invalid JSON", `{"input_length": 10`, "", "invalid JSON"},
		{"array", `[1, 2]`, "", "not a JSON object"},
		{"no input", `{"output_length": 5}`, "", "exactly one of input_length, text_input, messages or payload is required"},
		{"empty object", `{}`, "", "exactly one of"},
		{"null input", `{"input_length": null}`, "", "exactly one of"},
		{"input_length and messages", `{"input_length": 10, "messages": [{"role": "user"}]}`, "messages", "input_length and messages are mutually exclusive"},
		{"input_length, text_input and payload", `{"input_length": 10, "text_input": "hi", "payload": {"a": 1}}`, "payload", "text_input and payload are mutually exclusive"},
		{"three inputs", `{"text_input": "a", "messages": [{"role": "user"}], "payload": {"a": 1}}`, "messages", "text_input and messages and payload are mutually exclusive"},
		{"input_length string", `{"input_length": "12"}`, "input_length", "want an integer, got a string"},
		{"input_length fraction", `{"input_length": 1.5}`, "input_length", "want an integer, got 1.5"},
		{"input_length huge", `{"input_length": 1e400}`, "input_length", "out of range"},
		{"input_length zero", `{"input_length": 0}`, "input_length", "must be > 0, got 0"},
		{"input_length negative", `{"input_length": -3}`, "input_length", "must be > 0"},
		{"hash_ids with text", `{"text_input": "hi", "hash_ids": [1]}`, "hash_ids", "only allowed with input_length"},
		{"hash_ids not array", `{"input_length": 10, "hash_ids": 5}`, "hash_ids", "want an array of integers, got a number"},
		{"hash_ids element", `{"input_length": 10, "hash_ids": [1, "x"]}`, "hash_ids", "element 1: want an integer, got a string"},
		{"final block too big", `{"input_length": 1025, "hash_ids": [1, 2]}`, "hash_ids", "Input length: 1025, Hash IDs: [1, 2], Block size: 512 are not compatible. The final hash block size: 513 must be greater than 0 and less than or equal to 512."},
		{"final block empty", `{"input_length": 512, "hash_ids": [1, 2]}`, "hash_ids", "The final hash block size: 0 must be"},
		{"text_input number", `{"text_input": 5}`, "text_input", "want a string, got a number"},
		{"messages empty", `{"messages": []}`, "messages", "must be a non-empty array"},
		{"messages not array", `{"messages": {"role": "user"}}`, "messages", "want an array of objects, got an object"},
		{"message not object", `{"messages": ["hi"]}`, "messages", "element 0: want an object, got a string"},
		{"message without role", `{"messages": [{"role": "user"}, {"content": "x"}]}`, "messages", `element 1 has no "role"`},
		{"payload empty", `{"payload": {}}`, "payload", "must be a non-empty object"},
		{"payload array", `{"payload": [1]}`, "payload", "want an object, got an array"},
		{"tools without messages", `{"text_input": "hi", "tools": [{"type": "function"}]}`, "tools", "only allowed with messages"},
		{"tools empty", `{"messages": [{"role": "user"}], "tools": []}`, "tools", "must be a non-empty array"},
		{"message_mode unknown", `{"messages": [{"role": "user"}], "message_mode": "full"}`, "message_mode", `"full": want "history" or "delta"`},
		{"message_mode type", `{"messages": [{"role": "user"}], "message_mode": 1}`, "message_mode", "want a string"},
		{"delta without messages", `{"text_input": "hi", "message_mode": "delta"}`, "message_mode", `"delta" is only supported with messages`},
		{"delta extra messages", `{"messages": [{"role": "user"}], "message_mode": "delta", "extra": {"messages": []}}`, "extra", `must not hold "messages"`},
		{"extra with payload", `{"payload": {"a": 1}, "extra": {"b": 2}}`, "extra", "cannot be combined with payload"},
		{"extra not object", `{"text_input": "hi", "extra": [1]}`, "extra", "want an object, got an array"},
		{"output_length negative", `{"text_input": "hi", "output_length": -1}`, "output_length", "must be >= 0, got -1"},
		{"output_length boolean", `{"text_input": "hi", "output_length": true}`, "output_length", "want an integer, got a boolean"},
		{"timestamp string", `{"text_input": "hi", "timestamp": "0"}`, "timestamp", "want a number, got a string"},
		{"timestamp negative", `{"text_input": "hi", "timestamp": -5}`, "timestamp", "must be >= 0 ms"},
		{"delay negative", `{"text_input": "hi", "delay": -0.5}`, "delay", "must be >= 0 ms"},
		{"session_id number", `{"text_input": "hi", "delay": null, "session_id": 5}`, "session_id", "want a string, got a number"},
		{"type", `{"type": "single_turn", "text_input": "hi"}`, "type", `"single_turn" in a mooncake_trace row`},
		{"invalid UTF-8", "{\"text_input\": \"\xff\"}", "", "invalid UTF-8 at byte 16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadTrace(t, "bad.jsonl", "mooncake_trace", tt.line+"\n", nil)
			checkBad(t, err, badLine{1, tt.field, tt.msg})
			if !strings.Contains(err.Error(), "bad.jsonl:1:") {
				t.Errorf("error %q does not name the file and line", err)
			}
		})
	}
}

// TestMooncakeBadSessions checks the rules that span rows: one kind of row
// per session, and timestamps that agree with the fixed schedule. Errors of
// every pass come in line order.
func TestMooncakeBadSessions(t *testing.T) {
	tests := []struct {
		name string
		rows []string
		want []badLine
	}{
		{"messages after text", []string{
			`{"session_id": "s", "text_input": "a"}`,
			`{"session_id": "s", "messages": [{"role": "user"}]}`,
		}, []badLine{{2, "session_id", `session "s" mixes messages (history) rows with input_length/text_input rows (line 1)`}}},
		{"payload after messages", []string{
			`{"session_id": "s", "messages": [{"role": "user"}]}`,
			`{"session_id": "s", "payload": {"a": 1}}`,
		}, []badLine{{2, "session_id", "mixes payload rows with messages (history) rows"}}},
		{"delta after history", []string{
			`{"session_id": "s", "messages": [{"role": "user"}]}`,
			`{"session_id": "s", "messages": [{"role": "user"}], "message_mode": "delta"}`,
		}, []badLine{{2, "session_id", "mixes messages (delta) rows with messages (history) rows"}}},
		{"timed, a session without a timestamp", []string{
			`{"timestamp": 0, "text_input": "a"}`,
			`{"text_input": "b"}`,
			`{"session_id": "s", "timestamp": 5, "text_input": "c"}`,
			`{"session_id": "s", "delay": 5, "text_input": "d"}`,
		}, []badLine{{2, "timestamp", "missing: the first row has a timestamp"}}},
		{"untimed, a timestamp", []string{
			`{"text_input": "a"}`,
			`{"timestamp": 3, "text_input": "b"}`,
		}, []badLine{{2, "timestamp", "timestamps would be ignored"}}},
		{"errors of both passes in line order", []string{
			`{"session_id": "s", "text_input": "a"}`,
			`{"session_id": "s", "payload": {"a": 1}}`,
			`{"input_length": "x"}`,
		}, []badLine{{2, "session_id", "mixes payload rows"}, {3, "input_length", "want an integer"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadTrace(t, "s.jsonl", "mooncake_trace", strings.Join(tt.rows, "\n"), nil)
			checkBad(t, err, tt.want...)
		})
	}
	// With --ignore-trace-delays timestamps are not checked.
	if _, err := loadTrace(t, "s.jsonl", "", `{"text_input": "a"}`+"\n"+`{"timestamp": 3, "text_input": "b"}`, func(o *Options) { o.IgnoreDelays = true }); err != nil {
		t.Errorf("ignore delays: %v", err)
	}
}

// TestTraceEmptyAndLimits checks empty files, the bad-line limit and lines
// over 16 MiB.
func TestTraceEmptyAndLimits(t *testing.T) {
	for _, typ := range []string{"mooncake_trace", "bailian_trace", "burst_gpt_trace"} {
		for _, content := range []string{"", "\n \n\t\n"} {
			_, err := loadTrace(t, "empty", typ, content, nil)
			if err == nil || !strings.Contains(err.Error(), "no rows in") || !strings.Contains(err.Error(), "empty") {
				t.Errorf("%s %q: error %v, want one naming the file and saying it has no rows", typ, content, err)
			}
		}
	}
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, `{"input_length": %d}`+"\n", -i)
	}
	_, err := loadTrace(t, "many.jsonl", "", b.String(), nil)
	fe := traceFileError(t, err)
	if fe.Total != 30 || len(fe.Lines) != 20 || fe.Lines[19].Line != 20 {
		t.Errorf("30 bad lines: total %d, %d listed (last line %d); want 30, 20 (last 20)", fe.Total, len(fe.Lines), fe.Lines[len(fe.Lines)-1].Line)
	}
	huge := `{"text_input": "` + strings.Repeat("a", traceMaxLine) + `"}`
	_, err = loadTrace(t, "huge.jsonl", "mooncake_trace", `{"text_input": "ok"}`+"\n"+huge+"\n"+`{"text_input": 1}`, nil)
	checkBad(t, err, badLine{2, "", "longer than the 16 MiB limit"}, badLine{3, "text_input", "want a string"})
	_, err = loadTrace(t, "ok.jsonl", "", "\xEF\xBB\xBF"+`{"text_input": "bom"}`+"\r\n\r\n"+`{"text_input": "crlf"}`, nil)
	if err != nil {
		t.Errorf("BOM, CRLF and blank lines: %v", err)
	}
	if _, err := Load(context.Background(), traceOptions(t, "/nonexistent/trace.jsonl", "mooncake_trace")); err == nil {
		t.Error("a missing file loads")
	}
}
