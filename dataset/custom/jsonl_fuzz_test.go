package custom

import (
	"testing"
)

// fuzzRecord parses one line as the given record kind and checks the
// contract: no panic, and an error is a *LineError with a message.
func fuzzRecord(t *testing.T, line []byte, parse func(jsonObject) *LineError) {
	obj, lerr := parseJSONObject(line)
	if lerr == nil {
		lerr = parse(obj)
	}
	if lerr != nil && lerr.Msg == "" {
		t.Fatalf("%q: LineError without a message: %+v", line, lerr)
	}
}

var fuzzSeeds = []string{
	`{"text": "What is machine learning?", "output_length": 50}`,
	`{"texts": ["a", {"name": "query", "contents": ["q"]}], "images": ["https://h/i.png"], "timestamp": 1.5}`,
	`{"session_id": "chat_1", "turns": [{"role": "system", "text": "s"}, {"text": "b", "delay": 2000}]}`,
	`{"audio": "wav,AAAA", "video": "data:video/mp4;base64,AA", "extra": {"k": [1]}, "image_uuids": []}`,
	`{"text": 5}`, `[1]`, `null`, `{"texts": [{"contents": [null]}]}`, `{"turns": [[]]}`, `{"a"`,
}

func FuzzSingleTurnLine(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		fuzzRecord(t, line, func(obj jsonObject) *LineError {
			r, lerr := parseTurnRow(obj, "", rowSingleTurn, "", &mediaFiles{})
			if lerr == nil && r.content.empty() {
				t.Fatalf("%q: accepted without content", line)
			}
			return lerr
		})
	})
}

func FuzzMultiTurnLine(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		fuzzRecord(t, line, func(obj jsonObject) *LineError {
			rec, lerr := parseMultiRecord(obj, 1, &mediaFiles{})
			if lerr == nil && len(rec.rows) == 0 {
				t.Fatalf("%q: accepted without turns", line)
			}
			return lerr
		})
	})
}

func FuzzRandomPoolLine(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		fuzzRecord(t, line, func(obj jsonObject) *LineError {
			r, lerr := parseTurnRow(obj, "", rowPool, "pool", &mediaFiles{})
			if lerr == nil && (r.hasTimestamp || r.hasDelay || r.hasSettings) {
				t.Fatalf("%q: a pool entry with timing or settings", line)
			}
			return lerr
		})
	})
}
