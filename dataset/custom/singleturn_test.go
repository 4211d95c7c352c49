package custom

import (
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
)

// pngHeader is enough of a PNG for content sniffing.
var pngHeader = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

func loadSingle(t *testing.T, content string) (*dataset.Dataset, error) {
	t.Helper()
	return Load(context.Background(), jsonlOptions(t, writeJSONL(t, "d.jsonl", content), "single_turn"))
}

// TestSingleTurnBadLines checks that each kind of malformed line is reported
// with its line, field and reason, and that the load is refused.
func TestSingleTurnBadLines(t *testing.T) {
	tests := []struct {
		name, line string
		field, msg string
	}{
		{"invalid JSON", `{"text": "a"`, "", "invalid JSON"},
		{"trailing garbage", `{"text": "a"} x`, "", "invalid JSON"},
		{"array", `["text"]`, "", "not a JSON object"},
		{"null", `null`, "", "not a JSON object"},
		{"text number", `{"text": 5}`, "text", "must be a string, got a number"},
		{"texts string", `{"texts": "a"}`, "texts", "must be an array, got a string"},
		{"texts item number", `{"texts": ["a", 1]}`, "texts[1]", "must be a string or"},
		{"texts contents not strings", `{"texts": [{"name": "x", "contents": [1]}]}`, "texts[0].contents[0]", "must be a string"},
		{"texts name number", `{"texts": [{"name": 3, "contents": ["a"]}]}`, "texts[0].name", "must be a string"},
		{"no modality", `{"role": "user"}`, "", "needs content"},
		{"empty text only", `{"text": ""}`, "", "needs content"},
		{"turns in single_turn", `{"turns": [{"text": "a"}]}`, "", "multi_turn"},
		{"text and texts", `{"text": "a", "texts": ["b"]}`, "texts", "cannot be set together"},
		{"image and images", `{"text": "a", "image": "http://x/a.png", "images": ["http://x/b.png"]}`, "images", "cannot be set together"},
		{"timestamp and delay", `{"text": "a", "timestamp": 5, "delay": 10}`, "delay", "cannot be set together"},
		{"timestamp string", `{"text": "a", "timestamp": "5"}`, "timestamp", "must be a number"},
		{"negative delay", `{"text": "a", "delay": -1}`, "delay", "must be >= 0"},
		{"output_length zero", `{"text": "a", "output_length": 0}`, "output_length", "must be > 0"},
		{"output_length negative", `{"text": "a", "output_length": -3}`, "output_length", "must be > 0"},
		{"output_length fraction", `{"text": "a", "output_length": 2.5}`, "output_length", "must be an integer"},
		{"output_length huge", `{"text": "a", "output_length": 1e400}`, "output_length", "out of range"},
		{"session_id number", `{"text": "a", "session_id": 7}`, "session_id", "must be a string"},
		{"role bool", `{"text": "a", "role": true}`, "role", "must be a string, got a boolean"},
		{"model empty", `{"text": "a", "model": ""}`, "model", "empty model name"},
		{"extra array", `{"text": "a", "extra": [1]}`, "extra", "must be an object"},
		{"other type", `{"type": "random_pool", "text": "a"}`, "type", `"random_pool" in a single_turn record`},
		{"two queries", `{"texts": [{"name": "query", "contents": ["a", "b"]}]}`, "texts", "carries one query"},
		{"missing image file", `{"image": "no/such/file.png"}`, "image", "no such file"},
		{"half URL", `{"image": "http:cat.png"}`, "image", "needs both a scheme and a host"},
		{"audio bad extension", `{"audio": "sound.ogg"}`, "audio", ".wav/.mp3"},
		{"video bad extension", `{"videos": ["clip.avi"]}`, "videos[0]", ".mp4/.webm"},
		{"empty image", `{"images": [""]}`, "images[0]", "empty image"},
		{"uuids with image", `{"image": "http://x/a.png", "image_uuids": ["u"]}`, "image_uuids", "singular image"},
		{"uuids misaligned", `{"images": ["http://x/a.png"], "image_uuids": ["u", "v"]}`, "image_uuids", "must match"},
		{"uuids alone", `{"text": "a", "image_uuids": ["u"]}`, "image_uuids", "needs images"},
		{"uuid empty", `{"images": ["http://x/a.png"], "image_uuids": [""]}`, "image_uuids[0]", "empty id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The bad line is line 3, between a good line and a blank one.
			_, err := loadSingle(t, "{\"text\": \"fine\"}\n\n"+tt.line+"\n{\"text\": \"fine\"}\n")
			fe := fileError(t, err)
			if fe.Total != 1 || len(fe.Lines) != 1 {
				t.Fatalf("got %v, want one bad line", fe)
			}
			got := fe.Lines[0]
			if got.Line != 3 || got.Field != tt.field || !strings.Contains(got.Msg, tt.msg) || !strings.HasSuffix(got.File, "d.jsonl") {
				t.Errorf("got %q line %d field %q: %q; want line 3 field %q: …%s…", got.File, got.Line, got.Field, got.Msg, tt.field, tt.msg)
			}
		})
	}
}

func TestSingleTurnEmptyAndBlank(t *testing.T) {
	for _, content := range []string{"", "\n\n  \n"} {
		_, err := loadSingle(t, content)
		if err == nil || !strings.Contains(err.Error(), "no records") {
			t.Errorf("%q: got %v, want no records", content, err)
		}
	}
}

func TestSingleTurnMaxErrors(t *testing.T) {
	o := jsonlOptions(t, writeJSONL(t, "d.jsonl", strings.Repeat("{\"text\": 1}\n", 30)), "single_turn")
	o.MaxErrors = 4
	_, err := Load(context.Background(), o)
	fe := fileError(t, err)
	if fe.Total != 30 || len(fe.Lines) != 4 || fe.Lines[3].Line != 4 {
		t.Errorf("total %d, %d listed: %v", fe.Total, len(fe.Lines), fe.Lines)
	}
	if !strings.Contains(err.Error(), "single_turn dataset") || !strings.Contains(err.Error(), "and 26 more") {
		t.Errorf("message %q", err)
	}
}

// TestSingleTurnUnknownFieldsIgnored: AIPerf's models allow extra fields.
func TestSingleTurnUnknownFieldsIgnored(t *testing.T) {
	d, err := loadSingle(t, `{"text": "a", "comment": {"x": 1}, "weight": 3}`)
	if err != nil || len(d.Conversations) != 1 {
		t.Fatalf("got %v, %v", d, err)
	}
}

func TestSingleTurnFields(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "cat.png")
	wav := filepath.Join(dir, "hello.WAV")
	mp4 := filepath.Join(dir, "clip.mp4")
	for path, b := range map[string][]byte{img: pngHeader, wav: []byte("RIFF"), mp4: []byte("mp4!")} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lines := []string{
		`{"text": "What is machine learning?", "output_length": 50, "model": "m2", "role": "assistant", "extra": {"top_k": 5,  "seed": 1}}`,
		`{"texts": ["Hello", {"name": "other", "contents": ["world"]}], "image": "` + img + `", "audio": "` + wav + `", "video": "` + mp4 + `"}`,
		`{"images": ["https://h/a.png", "data:image/png;base64,AAA"], "audios": ["mp3,BBB", "https://h/a.mp3"], "videos": ["https://h/v.mp4"], "delay": 250.5}`,
		`{"texts": [{"name": "query", "contents": ["what is up"]}, {"name": "passages", "contents": ["p1", "p2"]}], "output_length": 7.0}`,
		`{"text": "x", "images": ["` + img + `"], "image_uuids": ["uuid-1"]}`,
	}
	o := jsonlOptions(t, writeJSONL(t, "d.jsonl", strings.Join(lines, "\n")), "")
	o.Models = []string{"a", "b"}
	d, err := Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	want := []dataset.Turn{
		// o200k: What| is| machine| learning|? = 5 tokens.
		{Role: "assistant", Texts: []string{"What is machine learning?"}, Model: "m2", MaxTokens: 50, InputTokens: 5,
			Extra: []byte(`{"top_k":5,"seed":1}`)},
		// "Hello world": Hello| world = 2 tokens. Rows without a model take
		// the models round robin, counting only the turns that need one.
		{Role: "user", Texts: []string{"Hello", "world"}, Model: "a", InputTokens: 2,
			Images: []string{"data:image/png;base64," + b64(pngHeader)},
			Audios: []string{"wav," + b64([]byte("RIFF"))},
			Videos: []string{"data:video/mp4;base64," + b64([]byte("mp4!"))}},
		{Role: "user", Model: "b", DelayMS: 250.5,
			Images: []string{"https://h/a.png", "data:image/png;base64,AAA"},
			Audios: []string{"mp3,BBB", "https://h/a.mp3"},
			Videos: []string{"https://h/v.mp4"}},
		// "what is up p1 p2": what| is| up| p|1| p|2 = 7 tokens.
		{Role: "user", Query: "what is up", Passages: []string{"p1", "p2"}, Model: "a", MaxTokens: 7, InputTokens: 7},
		{Role: "user", Texts: []string{"x"}, Model: "b", InputTokens: 1,
			Images: []string{"data:image/png;base64," + b64(pngHeader)}},
	}
	if d.Sampling != dataset.SamplingSequential || d.Timed || len(d.Conversations) != len(want) {
		t.Fatalf("got %+v", d)
	}
	for i, c := range d.Conversations {
		if c.SessionID != "session_00000"+string(rune('0'+i)) || c.ContextMode != "" || len(c.Turns) != 1 {
			t.Errorf("conversation %d: %+v", i, c)
			continue
		}
		if !reflect.DeepEqual(c.Turns[0], want[i]) {
			t.Errorf("turn %d:\n got %+v\nwant %+v", i, c.Turns[0], want[i])
		}
	}
}

// TestSingleTurnSessions: rows sharing a session_id form one conversation,
// where the id first appears, sent as self-contained turns.
func TestSingleTurnSessions(t *testing.T) {
	d, err := loadSingle(t, strings.Join([]string{
		`{"text": "a1", "session_id": "A"}`,
		`{"text": "x"}`,
		`{"text": "b1", "session_id": "session_000000"}`,
		`{"text": "a2", "session_id": "A", "delay": 100}`,
	}, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	type conv struct {
		id, mode string
		texts    []string
	}
	var got []conv
	for _, c := range d.Conversations {
		cv := conv{id: c.SessionID, mode: c.ContextMode}
		for _, turn := range c.Turns {
			cv.texts = append(cv.texts, turn.Texts...)
		}
		got = append(got, cv)
	}
	// The generated id skips session_000000, which the file uses.
	want := []conv{
		{"A", dataset.MessageArrayWithResponses, []string{"a1", "a2"}},
		{"session_000001", "", []string{"x"}},
		{"session_000000", "", []string{"b1"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if d.Conversations[0].Turns[1].DelayMS != 100 {
		t.Errorf("delay %v", d.Conversations[0].Turns[1].DelayMS)
	}
}

func TestSingleTurnSchedule(t *testing.T) {
	d, err := loadSingle(t, "{\"text\": \"a\", \"timestamp\": 0}\n{\"text\": \"b\", \"timestamp\": 105.5}\n")
	if err != nil {
		t.Fatal(err)
	}
	turn := d.Conversations[1].Turns[0]
	if !d.Timed || !turn.HasTimestamp || turn.TimestampMS != 105.5 || !d.Conversations[0].Turns[0].HasTimestamp {
		t.Errorf("timed %v, turn %+v", d.Timed, turn)
	}

	// A later record without a timestamp cannot be scheduled.
	_, err = loadSingle(t, "{\"text\": \"a\", \"timestamp\": 0}\n{\"text\": \"b\"}\n{\"text\": \"c\", \"timestamp\": 9}\n")
	fe := fileError(t, err)
	if fe.Total != 1 || fe.Lines[0].Line != 2 || fe.Lines[0].Field != "timestamp" {
		t.Errorf("got %v", fe)
	}
	// A timestamp after an untimed first record would be ignored.
	_, err = loadSingle(t, "{\"text\": \"a\"}\n{\"text\": \"b\", \"timestamp\": 5}\n")
	if fe = fileError(t, err); fe.Lines[0].Line != 2 || !strings.Contains(fe.Lines[0].Msg, "ignored") {
		t.Errorf("got %v", fe)
	}
	// In a session, later turns may use delay.
	if _, err = loadSingle(t, `{"text": "a", "timestamp": 0, "session_id": "s"}`+"\n"+`{"text": "b", "delay": 5, "session_id": "s"}`); err != nil {
		t.Errorf("session with delay: %v", err)
	}
	// --ignore-trace-delays drops timing.
	o := jsonlOptions(t, writeJSONL(t, "d.jsonl", "{\"text\": \"a\", \"timestamp\": 10}\n{\"text\": \"b\", \"delay\": 3}\n"), "")
	o.IgnoreDelays = true
	if d, err = Load(context.Background(), o); err != nil || d.Timed || d.Conversations[0].Turns[0].HasTimestamp || d.Conversations[1].Turns[0].DelayMS != 0 {
		t.Errorf("ignore delays: %+v, %v", d, err)
	}
}

func TestSingleTurnOutputLengthDraws(t *testing.T) {
	path := writeJSONL(t, "d.jsonl", strings.Repeat("{\"text\": \"a\"}\n", 50)+"{\"text\": \"a\", \"output_length\": 3}\n")
	o := jsonlOptions(t, path, "")
	if d, err := Load(context.Background(), o); err != nil || d.Conversations[0].Turns[0].MaxTokens != 0 || d.Conversations[50].Turns[0].MaxTokens != 3 {
		t.Fatalf("OSL 0 must leave max_tokens unset: %v", err)
	}
	o.OSLMean = 20
	d, err := Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range d.Conversations[:50] {
		if c.Turns[0].MaxTokens != 20 {
			t.Errorf("conversation %d: max_tokens %d, want 20 (stddev 0)", i, c.Turns[0].MaxTokens)
		}
	}
	o.OSLStddev = 5
	d, err = Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[int]bool{}
	for _, c := range d.Conversations[:50] {
		distinct[c.Turns[0].MaxTokens] = true
	}
	if len(distinct) < 5 || d.Conversations[50].Turns[0].MaxTokens != 3 {
		t.Errorf("%d distinct draws; output_length row got %d", len(distinct), d.Conversations[50].Turns[0].MaxTokens)
	}
}

func TestSingleTurnCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Load(ctx, jsonlOptions(t, writeJSONL(t, "d.jsonl", `{"text": "a"}`), "single_turn"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}
