package custom

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
)

// wantTurn is what a test expects of a loaded turn: a literal text, or a
// synthetic prompt of tokens tokens, and the JSON of its Extra or Payload.
type wantTurn struct {
	text    string // the literal prompt, "" for none
	tokens  int    // synthetic prompt tokens, 0 for none
	extra   string
	payload string
	max     int
}

// checkTurn compares a turn with w.
func checkTurn(t *testing.T, i int, got dataset.Turn, w wantTurn) {
	t.Helper()
	var text string
	if len(got.Texts) == 1 {
		text = got.Texts[0]
	}
	switch {
	case w.text != "" && text != w.text:
		t.Errorf("row %d: text %q, want %q", i+1, text, w.text)
	case w.tokens > 0 && got.InputTokens != w.tokens:
		t.Errorf("row %d: %d prompt tokens, want %d", i+1, got.InputTokens, w.tokens)
	case w.payload != "" && len(got.Texts) > 0:
		t.Errorf("row %d: a payload turn with texts %q", i+1, got.Texts)
	}
	if string(got.Extra) != w.extra {
		t.Errorf("row %d: extra %s, want %s", i+1, got.Extra, w.extra)
	}
	if string(got.Payload) != w.payload {
		t.Errorf("row %d: payload %s, want %s", i+1, got.Payload, w.payload)
	}
	if got.MaxTokens != w.max {
		t.Errorf("row %d: max_tokens %d, want %d", i+1, got.MaxTokens, w.max)
	}
}

// TestMooncakeTextWins: a mooncake row with both input_length and
// text_input sends the text, as GenAI-Perf does (input_length and hash_ids
// ignored, even ones that would not fit); an empty text_input gives way to
// input_length; a text_input that is no string is still an error.
func TestMooncakeTextWins(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       wantTurn
	}{
		{"both", `{"input_length": 100, "text_input": "hello world"}`, wantTurn{text: "hello world"}},
		{"both, text first", `{"text_input": "hi there", "input_length": 7, "output_length": 3}`, wantTurn{text: "hi there", max: 3}},
		{"hash ids ignored", `{"input_length": 1025, "hash_ids": [1, 2], "text_input": "x y"}`, wantTurn{text: "x y"}},
		{"empty text", `{"input_length": 12, "text_input": ""}`, wantTurn{tokens: 12}},
		{"text alone", `{"text_input": "only"}`, wantTurn{text: "only"}},
		{"length alone", `{"input_length": 9}`, wantTurn{tokens: 9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustTrace(t, "t.jsonl", "mooncake_trace", tc.line+"\n", nil)
			checkTurn(t, 0, turns(d)[0], tc.want)
		})
	}
	_, err := loadTrace(t, "t.jsonl", "mooncake_trace", `{"input_length": 10, "text_input": 5}`+"\n", nil)
	checkBad(t, err, badLine{1, "text_input", "want a string, got a number"})
}

// loadPayloadFile loads content as --input-file payload:FILE.
func loadPayloadFile(t *testing.T, content string) (*dataset.Dataset, error) {
	t.Helper()
	o := traceOptions(t, PayloadPrefix+writeTrace(t, "payload.jsonl", content), "")
	return Load(context.Background(), o)
}

// TestPayloadRows: GenAI-Perf's payload lines. The prompt is text or
// text_input, else input_length tokens; output_length is max_tokens; the
// other members go into the body (Extra, in file order); a line with no
// prompt field is its own body, sent as given.
func TestPayloadRows(t *testing.T) {
	d, err := loadPayloadFile(t, `{"text": "What is AI?", "temperature": 0.5, "output_length": 4}
{"text_input": "Say hi", "top_p": 0.9, "ignore_eos": true}
{"input_length": 16, "hash_ids": [7], "output_length": 2, "nvext": {"a": 1}}
{"input_length": 8, "text": ""}
{"messages": [{"role": "user", "content": "raw"}], "model": "m1", "stream": false}
{"model": "m2", "prompt": "p", "output_length": 5}
{"model": "m3", "max_tokens": 1, "output_length": 5}
`)
	if err != nil {
		t.Fatal(err)
	}
	if d.Timed {
		t.Error("a payload without timestamps is timed")
	}
	want := []wantTurn{
		{text: "What is AI?", extra: `{"temperature":0.5}`, max: 4},
		{text: "Say hi", extra: `{"top_p":0.9,"ignore_eos":true}`},
		{tokens: 16, extra: `{"nvext":{"a":1}}`, max: 2},
		{tokens: 8},
		{payload: `{"messages":[{"role":"user","content":"raw"}],"model":"m1","stream":false}`},
		{payload: `{"model":"m2","prompt":"p","max_tokens":5}`, max: 5},
		{payload: `{"model":"m3","max_tokens":1}`, max: 5},
	}
	got := turns(d)
	if len(got) != len(want) {
		t.Fatalf("%d turns, want %d", len(got), len(want))
	}
	for i := range want {
		checkTurn(t, i, got[i], want[i])
	}
}

// TestPayloadSchedule: timestamps make the payload timed (fixed-schedule
// replay), and rows sharing a session_id form one session with its
// delays.
func TestPayloadSchedule(t *testing.T) {
	d, err := loadPayloadFile(t, `{"timestamp": 0, "text": "a", "session_id": "s1"}
{"timestamp": 250, "text": "b"}
{"delay": 40, "text": "c", "session_id": "s1"}
`)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Timed || len(d.Conversations) != 2 {
		t.Fatalf("timed %v, %d conversations; want timed, 2", d.Timed, len(d.Conversations))
	}
	s1 := d.Conversations[0]
	if s1.SessionID != "s1" || len(s1.Turns) != 2 || s1.Turns[1].DelayMS != 40 || s1.Turns[0].TimestampMS != 0 || !s1.Turns[0].HasTimestamp {
		t.Errorf("session s1: %+v", s1)
	}
	if ts := d.Conversations[1].Turns[0].TimestampMS; ts != 250 {
		t.Errorf("second session at %v ms, want 250", ts)
	}
}

// TestPayloadBadLines: each malformed line named with its field.
func TestPayloadBadLines(t *testing.T) {
	_, err := loadPayloadFile(t, `{"text": "a", "text_input": "b"}
{"text": 5}
{"hash_ids": [1], "model": "m"}
{"timestamp": 0}
{"input_length": 0}
{"text": "a", "timestamp": "soon"}
[1]
{"input_length": 10, "output_length": -2}
`)
	checkBad(t, err,
		badLine{1, "text_input", "text and text_input are both given"},
		badLine{2, "text", "want a string, got a number"},
		badLine{3, "hash_ids", "only allowed with input_length"},
		badLine{4, "", "no request"},
		badLine{5, "input_length", "must be > 0"},
		badLine{6, "timestamp", "want a number"},
		badLine{7, "", "not a JSON object"},
		badLine{8, "output_length", "must be >= 0"},
	)
}

// TestPayloadPrefix: the prefix picks the format; a --custom-dataset-type
// beside it is refused; CheckInputFile looks at the file without it.
func TestPayloadPrefix(t *testing.T) {
	path := writeTrace(t, "p.jsonl", `{"text": "a"}`+"\n")
	o := traceOptions(t, PayloadPrefix+path, "single_turn")
	if _, err := Load(context.Background(), o); err == nil || !strings.Contains(err.Error(), "drop --custom-dataset-type") {
		t.Errorf("payload: with a type: %v", err)
	}
	if err := CheckInputFile(PayloadPrefix + path); err != nil {
		t.Errorf("CheckInputFile(payload:FILE): %v", err)
	}
	if err := CheckInputFile(PayloadPrefix + path + ".missing"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("CheckInputFile(payload:missing): %v", err)
	}
	var fe *FileError
	if _, err := Load(context.Background(), traceOptions(t, path, "")); errors.As(err, &fe) {
		t.Errorf("the same file without the prefix: %v", err)
	}
}

// FuzzParsePayload: any line parses to a row or a message, never a panic;
// a row with a payload holds a JSON object.
func FuzzParsePayload(f *testing.F) {
	for _, s := range []string{
		`{"text": "a", "temperature": 0.5}`,
		`{"input_length": 20, "hash_ids": [1], "timestamp": 3}`,
		`{"messages": [], "model": "m", "output_length": 4}`,
		`{"a": 1, "a": 2}`,
		`{"text": "", "text_input": null}`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, _, msg := parsePayload(b, 512)
		if (r == nil) == (msg == "") {
			t.Fatalf("%q: row %v with message %q", b, r, msg)
		}
		if r != nil && r.input == tracePayload && jsonKind(r.payload) != "an object" {
			t.Fatalf("%q: payload %s", b, r.payload)
		}
	})
}
