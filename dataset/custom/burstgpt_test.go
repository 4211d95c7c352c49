package custom

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
)

// TestBurstGPTGolden loads the reference's BurstGPT example (plus two rows)
// and checks it against the file before pinning the dataset in
// testdata/trace/burstgpt_examples.golden.
func TestBurstGPTGolden(t *testing.T) {
	o := traceOptions(t, filepath.Join("testdata", "trace", "burstgpt_examples.csv"), "")
	d, err := Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Timed || d.Sampling != dataset.SamplingSequential || len(d.Conversations) != 3 {
		t.Fatalf("timed %v, sampling %q, %d conversations; want timed, sequential, 3", d.Timed, d.Sampling, len(d.Conversations))
	}
	tok := traceTok(t)
	want := []struct {
		ts       float64
		isl, osl int
	}{{5000, 472, 18}, {45000, 1021, 230}, {46000, 12, 0}}
	for i, w := range want {
		c := d.Conversations[i]
		tu := c.Turns[0].Resolved()
		if len(c.Turns) != 1 || tu.TimestampMS != w.ts || !tu.HasTimestamp || tu.InputTokens != w.isl || tu.MaxTokens != w.osl {
			t.Errorf("row %d: %d turns, timestamp %v, isl %d, osl %d; want 1, %v, %d, %d", i+2, len(c.Turns), tu.TimestampMS, tu.InputTokens, tu.MaxTokens, w.ts, w.isl, w.osl)
		}
		if n := tok.Count(tu.Texts[0]); n != w.isl {
			t.Errorf("row %d: prompt re-encodes to %d tokens, want %d", i+2, n, w.isl)
		}
	}
	traceGolden(t, "burstgpt_examples.golden", traceJSON(t, d))
}

// TestBurstGPTColumns checks that columns are found by header name, in any
// order, with a byte-order mark, quoting and surrounding spaces.
func TestBurstGPTColumns(t *testing.T) {
	csv := "\uFEFFResponse tokens, Log Type ,Request tokens,Timestamp\r\n" +
		"7,\"Conversation, log\",30,1.5\r\n" +
		"\r\n" +
		" 0 ,API log, 4 ,2\r\n"
	d := mustTrace(t, "trace.txt", "burst_gpt_trace", csv, nil)
	got := turns(d)
	if len(got) != 2 || got[0].TimestampMS != 1500 || got[0].InputTokens != 30 || got[0].MaxTokens != 7 ||
		got[1].TimestampMS != 2000 || got[1].InputTokens != 4 || got[1].MaxTokens != 0 {
		t.Errorf("turns %+v", got)
	}
}

// TestBurstGPTBadRows checks that bad rows are reported by row number (the
// header is row 1) and column, where AIPerf skips them silently.
func TestBurstGPTBadRows(t *testing.T) {
	header := "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
	good := "5,ChatGPT,472,18,490,Conversation log\n"
	tests := []struct {
		name, row, field, msg string
	}{
		{"timestamp text", "soon,ChatGPT,472,18,490,x", "Timestamp", `want a number of seconds, got "soon"`},
		{"timestamp NaN", "NaN,ChatGPT,472,18,490,x", "Timestamp", "want a number of seconds"},
		{"timestamp negative", "-1,ChatGPT,472,18,490,x", "Timestamp", "must be >= 0 s"},
		{"request fraction", "5,ChatGPT,47.5,18,490,x", "Request tokens", `want an integer, got "47.5"`},
		{"request empty", "5,ChatGPT,,18,490,x", "Request tokens", `want an integer, got ""`},
		{"request zero", "5,ChatGPT,0,18,490,x", "Request tokens", "must be > 0, got 0"},
		{"response negative", "5,ChatGPT,472,-18,490,x", "Response tokens", "must be >= 0, got -18"},
		{"response text", "5,ChatGPT,472,many,490,x", "Response tokens", "want an integer"},
		{"too few fields", "5,ChatGPT,472", "", "has 3 fields, the header has 6"},
		{"too many fields", "5,ChatGPT,472,18,490,x,y", "", "has 7 fields, the header has 6"},
		{"invalid UTF-8", "5,Chat\xffGPT,472,18,490,x", "", "invalid UTF-8 in field 2"},
		// Stray quotes are data, as in Python's csv; an unclosed one runs to
		// the end of the file.
		{"unclosed quote", "5,\"ChatGPT,472,18,490,x", "", "has 2 fields, the header has 6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadTrace(t, "b.csv", "", header+good+tt.row+"\n", nil)
			checkBad(t, err, badLine{3, tt.field, tt.msg})
		})
	}
	// Rows keep their numbers across bad rows.
	_, err := loadTrace(t, "b.csv", "", header+good+"x,a,1,1,2,l\n"+good+good+"5,a,1,-1,0,l\n", nil)
	checkBad(t, err, badLine{3, "Timestamp", "want a number"}, badLine{6, "Response tokens", "must be >= 0"})

	_, err = loadTrace(t, "b.csv", "", "Timestamp,Model,Total tokens\n5,a,3\n", nil)
	checkBad(t, err, badLine{1, "Request tokens", `header lacks column "Request tokens", "Response tokens"`})
	for _, content := range []string{header, "\uFEFF\n"} {
		_, err = loadTrace(t, "b.csv", "", content, nil)
		if err == nil || !strings.Contains(err.Error(), "no rows in") {
			t.Errorf("%q: error %v, want no rows", content, err)
		}
	}
}

// TestTraceDetect checks the detectors on the trace examples and on files
// of other kinds.
func TestTraceDetect(t *testing.T) {
	ex := func(name string) string { return filepath.Join("testdata", "trace", name) }
	tests := []struct {
		name, path               string
		mooncake, bailian, burst bool
	}{
		{"mooncake fixture", ex("custom_trace.jsonl"), true, false, false},
		{"mooncake examples", ex("mooncake_examples.jsonl"), true, false, false},
		{"bailian", ex("bailian_examples.jsonl"), false, true, false},
		{"burst_gpt", ex("burstgpt_examples.csv"), false, false, true},
		{"burst_gpt header, no .csv", writeTrace(t, "trace.txt", "Timestamp,Model,Request tokens,Response tokens\n1,a,2,3\n"), false, false, true},
		{"blank first line", writeTrace(t, "m.jsonl", "\n  \n"+`{"hash_ids": [1], "input_length": 5}`), true, false, false},
		{"payload only", writeTrace(t, "m.jsonl", `{"payload": {"a": 1}}`), true, false, false},
		{"single_turn", writeTrace(t, "s.jsonl", `{"text": "hi"}`), false, false, false},
		{"json mentioning Request tokens", writeTrace(t, "s.jsonl", `{"text": "Request tokens"}`), false, false, false},
		{"not json", writeTrace(t, "x.jsonl", "input_length"), false, false, false},
		{"empty", writeTrace(t, "e.jsonl", ""), false, false, false},
		{"directory", t.TempDir(), false, false, false},
		{"missing", filepath.Join(t.TempDir(), "nope.csv"), false, false, false},
	}
	for _, tt := range tests {
		m, b, g := detectMooncake(tt.path), detectBailian(tt.path), detectBurstGPT(tt.path)
		if m != tt.mooncake || b != tt.bailian || g != tt.burst {
			t.Errorf("%s: mooncake %v, bailian %v, burst_gpt %v; want %v, %v, %v", tt.name, m, b, g, tt.mooncake, tt.bailian, tt.burst)
		}
	}
}
