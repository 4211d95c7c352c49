package custom

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// traceSeeds adds the lines of the trace examples in testdata/trace to f.
func traceSeeds(f *testing.F, name string, extra ...string) {
	b, err := os.ReadFile(filepath.Join("testdata", "trace", name))
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range append(strings.Split(string(b), "\n"), extra...) {
		f.Add([]byte(l))
	}
}

// checkRow checks the invariants every accepted synthetic trace row keeps.
func checkRow(t *testing.T, r *traceRow, size int) {
	t.Helper()
	if r.input == traceSynthetic {
		if len(r.hashIDs) > 0 {
			if _, msg := blockFinal(r.inputLength, r.hashIDs, size); msg != "" {
				t.Fatalf("accepted a row breaking the final-block rule: %s", msg)
			}
		} else if r.inputLength <= 0 {
			t.Fatalf("accepted input_length %d", r.inputLength)
		}
	}
	for _, raw := range [][]byte{r.messages, r.tools, r.payload, r.extra} {
		if raw != nil && !json.Valid(raw) {
			t.Fatalf("verbatim JSON %q is not valid", raw)
		}
	}
	if r.outputLength < 0 || r.timestamp < 0 || r.delay < 0 || math.IsNaN(r.timestamp) || math.IsInf(r.timestamp, 0) {
		t.Fatalf("accepted output_length %d, timestamp %v, delay %v", r.outputLength, r.timestamp, r.delay)
	}
}

func FuzzMooncakeLine(f *testing.F) {
	traceSeeds(f, "mooncake_examples.jsonl", `{"input_length": 1025, "hash_ids": [1, 2]}`, `{"input_length": 1e400}`,
		`{"messages": [{"role": "user"}], "message_mode": "delta", "extra": {"messages": null}}`, `{"hash_ids": [1, null], "input_length": 3}`)
	traceSeeds(f, "custom_trace.jsonl")
	f.Fuzz(func(t *testing.T, line []byte) {
		r, field, msg := parseMooncake(line, 64)
		if msg != "" {
			if r != nil {
				t.Fatal("a row and an error")
			}
			return
		}
		if field != "" || r == nil {
			t.Fatalf("no error, field %q, row %v", field, r)
		}
		checkRow(t, r, 64)
		given := 0
		for _, on := range []bool{r.input == traceSynthetic, r.input == traceText, r.messages != nil, r.payload != nil} {
			if on {
				given++
			}
		}
		if given != 1 || (r.tools != nil && r.messages == nil) || (r.delta && r.messages == nil) {
			t.Fatalf("accepted a row with %d inputs, tools %q, delta %v", given, r.tools, r.delta)
		}
	})
}

func FuzzBailianLine(f *testing.F) {
	traceSeeds(f, "bailian_examples.jsonl", `{"chat_id": 1, "timestamp": 1, "input_length": 33, "output_length": 1, "hash_ids": [1, 2]}`,
		`{"chat_id": 1, "timestamp": -1e308, "input_length": 1, "output_length": 0}`)
	f.Fuzz(func(t *testing.T, line []byte) {
		r, field, msg := parseBailian(line, 16)
		if msg != "" {
			return
		}
		if field != "" || r.traceRow == nil || !r.hasTimestamp || !r.hasOutput {
			t.Fatalf("no error, field %q, row %+v", field, r)
		}
		checkRow(t, r.traceRow, 16)
	})
}

func FuzzBurstGPTRow(f *testing.F) {
	for _, s := range []string{
		"5,ChatGPT,472,18,490,Conversation log",
		"1e3,\"a,b\",1,0,1,x",
		"\"5\",\"x\"\"y\",\"7\",\"8\",,",
		"NaN,a,1,1,1,a\n2,b,+3,4,5,6",
		"5,\"ChatGPT,472,18",
		"-0,a,1,0,1,x\r\n\r\n3,a,2,2,2,x",
	} {
		f.Add(s)
	}
	header := "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
	f.Fuzz(func(t *testing.T, rows string) {
		errs := &traceErrs{file: "f.csv", max: 20}
		got, total, err := readBurstGPT(context.Background(), strings.NewReader(header+rows), errs)
		if err != nil {
			t.Fatal(err)
		}
		if len(got)+len(errs.lines) != total {
			t.Fatalf("%d rows + %d bad != %d read", len(got), len(errs.lines), total)
		}
		for _, r := range got {
			checkRow(t, r, 512)
			if r.inputLength <= 0 || !r.hasTimestamp || r.line < 2 {
				t.Fatalf("accepted row %+v", r)
			}
		}
	})
}
