package custom

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
)

// TestBailianGolden loads the reference's bailian rows (their hash_ids
// completed to ceil(input_length/16) blocks: the documentation abbreviates
// the lists, see TestBailianReferenceExample) and checks them against the
// file before pinning the dataset in testdata/trace/bailian_examples.golden.
func TestBailianGolden(t *testing.T) {
	o := traceOptions(t, filepath.Join("testdata", "trace", "bailian_examples.jsonl"), "")
	d, err := Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Timed || d.Sampling != dataset.SamplingSequential || len(d.Conversations) != 2 {
		t.Fatalf("timed %v, sampling %q, %d conversations; want timed, sequential, 2", d.Timed, d.Sampling, len(d.Conversations))
	}
	root, other := d.Conversations[0], d.Conversations[1]
	if root.SessionID != "159" || len(root.Turns) != 2 || other.SessionID != "7" || len(other.Turns) != 1 {
		t.Fatalf("sessions %q (%d turns), %q (%d turns); want 159 (2), 7 (1)", root.SessionID, len(root.Turns), other.SessionID, len(other.Turns))
	}
	want := []struct {
		tu       dataset.Turn
		ts       float64
		isl, osl int
	}{{root.Turns[0], 61114, 521, 132}, {root.Turns[1], 62500, 400, 80}, {other.Turns[0], 61500, 20, 5}}
	for i, w := range want {
		if math.Abs(w.tu.TimestampMS-w.ts) > 1e-6 || !w.tu.HasTimestamp || w.tu.InputTokens != w.isl || w.tu.MaxTokens != w.osl {
			t.Errorf("turn %d: timestamp %v, isl %d, osl %d; want %v, %d, %d", i, w.tu.TimestampMS, w.tu.InputTokens, w.tu.MaxTokens, w.ts, w.isl, w.osl)
		}
	}
	for _, c := range d.Conversations {
		if c.ContextMode != dataset.MessageArrayWithResponses {
			t.Errorf("session %s: mode %q, want %q", c.SessionID, c.ContextMode, dataset.MessageArrayWithResponses)
		}
	}
	// Turn 2 repeats turn 1's first 24 blocks, chat 7 its first block; the
	// common prefix then runs into the separator opening the next block.
	t1, t2, t7 := root.Turns[0].Resolved().Texts[0], root.Turns[1].Resolved().Texts[0], other.Turns[0].Resolved().Texts[0]
	if n := strings.Count(commonPrefix(t1, t2), "<|endoftext|>"); n != 24+1 {
		t.Errorf("turns 1 and 2 share %d separators, want 24 blocks + 1", n)
	}
	if n := strings.Count(commonPrefix(t1, t7), "<|endoftext|>"); n != 1+1 {
		t.Errorf("chat 159 and chat 7 share %d separators, want 1 block + 1", n)
	}
	traceGolden(t, "bailian_examples.golden", traceJSON(t, d))
}

// TestBailianReferenceExample checks the reference's example row as
// printed: with 16-token blocks its three hash ids cannot cover 521 tokens,
// so it fails with the final-block rule; with --isl-block-size 256 it fits.
func TestBailianReferenceExample(t *testing.T) {
	row := `{"chat_id": 159, "parent_chat_id": -1, "timestamp": 61.114, "input_length": 521, "output_length": 132, "type": "text", "turn": 1, "hash_ids": [1089, 1090, 1091]}`
	_, err := loadTrace(t, "b.jsonl", "", row, nil)
	checkBad(t, err, badLine{1, "hash_ids", "Input length: 521, Hash IDs: [1089, 1090, 1091], Block size: 16 are not compatible. The final hash block size: 489 must be greater than 0 and less than or equal to 16."})
	d := mustTrace(t, "b.jsonl", "", row, func(o *Options) { o.BlockSize = 256 })
	if tu := d.Conversations[0].Turns[0].Resolved(); tu.InputTokens != 521 || strings.Count(tu.Texts[0], "<|endoftext|>") != 3 {
		t.Errorf("block size 256: %d tokens, %d blocks; want 521, 3", tu.InputTokens, strings.Count(tu.Texts[0], "<|endoftext|>"))
	}
}

// TestBailianSessions checks the parent_chat_id chains: a session is named
// by its root, holds its rows sorted by turn, and a row whose parent is
// absent (or dropped by a filter) is a root; a cycle stays one session.
func TestBailianSessions(t *testing.T) {
	rows := strings.Join([]string{
		`{"chat_id": 3, "parent_chat_id": 2, "timestamp": 3, "input_length": 30, "output_length": 1, "turn": 3}`,
		`{"chat_id": 1, "timestamp": 1, "input_length": 10, "output_length": 1}`,
		`{"chat_id": 10, "parent_chat_id": 99, "timestamp": 4, "input_length": 5, "output_length": 1, "turn": 2}`,
		`{"chat_id": 2, "parent_chat_id": 1, "timestamp": 2, "input_length": 20, "output_length": 1, "turn": 2}`,
		`{"chat_id": 20, "parent_chat_id": 21, "timestamp": 5, "input_length": 7, "output_length": 1, "turn": 2}`,
		`{"chat_id": 21, "parent_chat_id": 20, "timestamp": 6, "input_length": 8, "output_length": 1, "turn": 1}`,
	}, "\n")
	type conv struct {
		id   string
		isls []int
	}
	check := func(t *testing.T, d *dataset.Dataset, want []conv) {
		t.Helper()
		if len(d.Conversations) != len(want) {
			t.Fatalf("%d sessions, want %d", len(d.Conversations), len(want))
		}
		for i, w := range want {
			c := d.Conversations[i]
			var isls []int
			for _, tu := range c.Turns {
				isls = append(isls, tu.InputTokens)
			}
			if c.SessionID != w.id || len(isls) != len(w.isls) || !equalInts(isls, w.isls) {
				t.Errorf("session %d: %s %v, want %s %v", i, c.SessionID, isls, w.id, w.isls)
			}
		}
	}
	check(t, mustTrace(t, "b.jsonl", "bailian_trace", rows, nil), []conv{{"1", []int{10, 20, 30}}, {"10", []int{5}}, {"20", []int{8, 7}}})
	// Dropping chat 1 (timestamp 1 s) by the window makes chat 2 a root.
	start := 1500.0
	check(t, mustTrace(t, "b.jsonl", "bailian_trace", rows, func(o *Options) { o.StartOffsetMS = &start }),
		[]conv{{"2", []int{20, 30}}, {"10", []int{5}}, {"20", []int{8, 7}}})
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestBailianBadLines checks that malformed rows are reported with line
// and field.
func TestBailianBadLines(t *testing.T) {
	ok := `"chat_id": 1, "timestamp": 1, "input_length": 10, "output_length": 1`
	tests := []struct {
		name, line, field, msg string
	}{
		{"invalid JSON", `{"chat_id": 1,`, "", "invalid JSON"},
		{"missing chat_id", `{"timestamp": 1, "input_length": 10, "output_length": 1}`, "chat_id", "missing (required)"},
		{"missing timestamp", `{"chat_id": 1, "input_length": 10, "output_length": 1}`, "timestamp", "missing (required)"},
		{"missing input_length", `{"chat_id": 1, "timestamp": 1, "output_length": 1}`, "input_length", "missing (required)"},
		{"missing output_length", `{"chat_id": 1, "timestamp": 1, "input_length": 10}`, "output_length", "missing (required)"},
		{"chat_id string", `{"chat_id": "1", "timestamp": 1, "input_length": 10, "output_length": 1}`, "chat_id", "want an integer, got a string"},
		{"parent fraction", `{` + ok + `, "parent_chat_id": 0.5}`, "parent_chat_id", "want an integer, got 0.5"},
		{"turn string", `{` + ok + `, "turn": "2"}`, "turn", "want an integer"},
		{"type number", `{` + ok + `, "type": 3}`, "type", "want a string, got a number"},
		{"timestamp string", `{"chat_id": 1, "timestamp": "1", "input_length": 10, "output_length": 1}`, "timestamp", "want a number"},
		{"timestamp negative", `{"chat_id": 1, "timestamp": -1, "input_length": 10, "output_length": 1}`, "timestamp", "must be >= 0 s"},
		{"output negative", `{"chat_id": 1, "timestamp": 1, "input_length": 10, "output_length": -2}`, "output_length", "must be >= 0"},
		{"input zero", `{"chat_id": 1, "timestamp": 1, "input_length": 0, "output_length": 1}`, "input_length", "must be > 0"},
		{"hash_ids element", `{` + ok + `, "hash_ids": [1, null]}`, "hash_ids", "element 1: want an integer, got null"},
		{"final block", `{"chat_id": 1, "timestamp": 1, "input_length": 33, "output_length": 1, "hash_ids": [1, 2]}`, "hash_ids", "The final hash block size: 17 must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadTrace(t, "bad.jsonl", "bailian_trace", `{`+ok+`}`+"\n"+tt.line, nil)
			checkBad(t, err, badLine{2, tt.field, tt.msg})
		})
	}
}
