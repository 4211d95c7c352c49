package custom

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
)

// TestMooncakeGolden loads the trace-replay example of the reference
// (spec/fixtures/docs-examples/custom_trace.jsonl) and the schema's
// examples, checks their fields against the files, and pins the whole
// datasets in testdata/trace/*.golden (-update rewrites them).
func TestMooncakeGolden(t *testing.T) {
	o := traceOptions(t, filepath.Join("testdata", "trace", "custom_trace.jsonl"), "")
	d, err := Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Timed || d.Sampling != dataset.SamplingSequential || len(d.Conversations) != 3 {
		t.Fatalf("timed %v, sampling %q, %d conversations; want timed, sequential, 3", d.Timed, d.Sampling, len(d.Conversations))
	}
	want := []struct {
		ts            float64
		isl, osl      int
		model, prefix string
	}{{0, 1200, 52, "model-a", ""}, {105, 1800, 26, "model-b", ""}, {274, 1300, 52, "model-a", ""}}
	for i, c := range d.Conversations {
		tu := c.Turns[0].Resolved()
		if len(c.Turns) != 1 || c.ContextMode != dataset.DeltasWithoutResponses || c.SessionID != fmt.Sprintf("session_%06d", i) {
			t.Errorf("conversation %d: %d turns, mode %q, id %q", i, len(c.Turns), c.ContextMode, c.SessionID)
		}
		w := want[i]
		if !tu.HasTimestamp || tu.TimestampMS != w.ts || tu.InputTokens != w.isl || tu.MaxTokens != w.osl || tu.Model != w.model || tu.Role != "user" || len(tu.Texts) != 1 {
			t.Errorf("turn %d: %+v", i, tu)
		}
	}
	// Rows 1 and 2 share hash block 0; row 3 opens with block 1, row 1's second.
	t1, t2, t3 := d.Conversations[0].Turns[0].Resolved().Texts[0], d.Conversations[1].Turns[0].Resolved().Texts[0], d.Conversations[2].Turns[0].Resolved().Texts[0]
	// The common prefix of rows 1 and 2 may run a few bytes past block 0
	// when blocks 1 and 3 happen to open alike; block 1 starts at or
	// before its end.
	block0 := commonPrefix(t1, t2)
	at := strings.Index(t1, t3[:1000])
	if len(block0) < 1000 || at <= 0 || at > len(block0) || len(commonPrefix(t1[at:], t3)) < 1000 {
		t.Errorf("shared blocks do not give shared text: rows 1/2 share %d bytes, row 3 opens at byte %d of row 1", len(block0), at)
	}
	traceGolden(t, "custom_trace.golden", traceJSON(t, d))

	o = traceOptions(t, filepath.Join("testdata", "trace", "mooncake_examples.jsonl"), "mooncake_trace")
	d, err = Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if d.Timed || len(d.Conversations) != 7 {
		t.Fatalf("timed %v, %d conversations; want untimed, 7", d.Timed, len(d.Conversations))
	}
	modes := []string{dataset.DeltasWithoutResponses, dataset.DeltasWithoutResponses, dataset.DeltasWithoutResponses,
		dataset.MessageArrayWithResponses, dataset.MessageArrayWithResponses, dataset.DeltasWithoutResponses, dataset.DeltasWithoutResponses}
	for i, c := range d.Conversations {
		if c.ContextMode != modes[i] {
			t.Errorf("conversation %d (%s): mode %q, want %q", i, c.SessionID, c.ContextMode, modes[i])
		}
	}
	c := d.Conversations
	if tu := c[2].Turns[0]; tu.Texts[0] != "Hello world" || tu.InputTokens != 2 || tu.MaxTokens != 4 {
		t.Errorf("text_input turn: %+v", tu)
	}
	if tu := c[3].Turns[0]; string(tu.Messages) != `[{"role":"user","content":"Hello"}]` || tu.Texts != nil || tu.MaxTokens != 4 {
		t.Errorf("messages turn: %+v", tu)
	}
	if tu := c[4].Turns[0]; string(tu.Payload) != `{"prompt":"Hello","max_tokens":50}` || tu.MaxTokens != 0 {
		t.Errorf("payload turn: %+v", tu)
	}
	if s := c[5]; s.SessionID != "abc-123" || len(s.Turns) != 2 || s.Turns[1].DelayMS != 2 || s.Turns[0].InputTokens != 300 || s.Turns[1].InputTokens != 150 {
		t.Errorf("input_length session: %+v", s)
	}
	if s := c[6]; s.SessionID != "s1" || len(s.Turns) != 2 || string(s.Turns[1].Tools) != `[{"type":"function","function":{"name":"lookup"}}]` || string(s.Turns[1].Extra) != `{"temperature":0}` {
		t.Errorf("delta session: %+v", s)
	}
	traceGolden(t, "mooncake_examples.golden", traceJSON(t, d))
}

func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}

// TestMooncakeInputLength checks that every synthetic prompt has
// input_length tokens: hash_ids prompts by their ids (InputTokens), plain
// ones also when the text is encoded again.
func TestMooncakeInputLength(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var b strings.Builder
	var lens []int
	for i := range 60 {
		n := 1 + rng.IntN(3000)
		lens = append(lens, n)
		if i%2 == 0 {
			blocks := (n + 511) / 512
			ids := make([]string, blocks)
			for k := range ids {
				ids[k] = fmt.Sprint(rng.IntN(20)*100 + k) // shared by rows, at one position
			}
			ids[blocks-1] = fmt.Sprint(100000 + i) // a fresh last block
			fmt.Fprintf(&b, `{"input_length": %d, "hash_ids": [%s]}`+"\n", n, strings.Join(ids, ", "))
		} else {
			fmt.Fprintf(&b, `{"input_length": %d}`+"\n", n)
		}
	}
	d := mustTrace(t, "t.jsonl", "", b.String(), nil)
	tok := traceTok(t)
	for i, tu := range turns(d) {
		// Shared hash ids are never a last block, so the quirk (see
		// TestBlockQuirk) does not apply and every row is exact.
		if tu.InputTokens != lens[i] {
			t.Errorf("row %d: InputTokens %d, want input_length %d", i+1, tu.InputTokens, lens[i])
		}
		if i%2 == 1 {
			if n := tok.Count(tu.Texts[0]); n != lens[i] {
				t.Errorf("row %d: plain prompt re-encodes to %d tokens, want %d", i+1, n, lens[i])
			}
		}
	}
}

// TestMooncakeSessions checks grouping by session_id in file order, the
// generated ids of the other rows, delays, and the context modes of §4.7.
func TestMooncakeSessions(t *testing.T) {
	d := mustTrace(t, "s.jsonl", "", strings.Join([]string{
		`{"session_id": "a", "timestamp": 0, "input_length": 20}`,
		`{"text_input": "solo", "timestamp": 5}`,
		`{"session_id": "a", "delay": 1500, "input_length": 30, "timestamp": 7}`,
		`{"session_id": "session_000000", "timestamp": 9, "text_input": "named like a generated id"}`,
		`{"session_id": "h", "timestamp": 10, "messages": [{"role": "user", "content": "hi"}]}`,
		`{"session_id": "h", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}, {"role": "user", "content": "and?"}], "message_mode": "history"}`,
		`{"session_id": "p", "timestamp": 11, "payload": {"input": "x"}}`,
		`{"session_id": "p", "payload": {"input": "y"}}`,
	}, "\n"), nil)
	want := []struct {
		id, mode string
		lines    int
	}{
		{"a", dataset.DeltasWithoutResponses, 2},
		{"session_000001", dataset.DeltasWithoutResponses, 1},
		{"session_000000", dataset.DeltasWithoutResponses, 1},
		{"h", dataset.MessageArrayWithResponses, 2},
		{"p", dataset.MessageArrayWithResponses, 2},
	}
	if len(d.Conversations) != len(want) || !d.Timed {
		t.Fatalf("%d conversations, timed %v; want %d, timed", len(d.Conversations), d.Timed, len(want))
	}
	for i, w := range want {
		c := d.Conversations[i]
		if c.SessionID != w.id || c.ContextMode != w.mode || len(c.Turns) != w.lines {
			t.Errorf("conversation %d: %q %q %d turns; want %q %q %d", i, c.SessionID, c.ContextMode, len(c.Turns), w.id, w.mode, w.lines)
		}
	}
	a := d.Conversations[0].Turns
	if a[0].InputTokens != 20 || a[1].InputTokens != 30 || a[1].DelayMS != 1500 || a[1].TimestampMS != 7 || !a[1].HasTimestamp {
		t.Errorf("session a: %+v", a)
	}
	models := []string{}
	for _, tu := range turns(d) {
		models = append(models, tu.Model)
	}
	if got := strings.Join(models, ","); got != "model-a,model-b,model-a,model-b,model-a,model-b,model-a,model-b" {
		t.Errorf("models %s, want round robin in conversation order", got)
	}
}

// TestMooncakeFilters checks the trace-loader filters of §4.2.
func TestMooncakeFilters(t *testing.T) {
	rows := strings.Join([]string{
		`{"timestamp": 0, "input_length": 10, "output_length": 5}`,
		`{"timestamp": 100, "input_length": 20, "output_length": 50}`,
		`{"timestamp": 200, "input_length": 30, "output_length": 500}`,
		`{"timestamp": 300, "input_length": 40, "output_length": 5000}`,
		`{"timestamp": 400, "text_input": "a long text is never dropped by max ISL"}`,
	}, "\n")
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name     string
		set      func(*Options)
		ts       []float64 // kept rows' timestamps, -1 for none
		maxToken []int
		timed    bool
	}{
		{"none", nil, []float64{0, 100, 200, 300, 400}, []int{5, 50, 500, 5000, 0}, true},
		{"window inclusive", func(o *Options) { o.StartOffsetMS, o.EndOffsetMS = f(100), f(300) }, []float64{100, 200, 300}, []int{50, 500, 5000}, true},
		{"start only", func(o *Options) { o.StartOffsetMS = f(250) }, []float64{300, 400}, []int{5000, 0}, true},
		{"max isl", func(o *Options) { o.MaxISL = 20 }, []float64{0, 100, 400}, []int{5, 50, 0}, true},
		{"max osl", func(o *Options) { o.MaxOSL = 100 }, []float64{0, 100, 200, 300, 400}, []int{5, 50, 100, 100, 0}, true},
		{"osl for rows without output_length", func(o *Options) { o.OSLMean, o.MaxOSL = 64, 10 }, []float64{0, 100, 200, 300, 400}, []int{5, 10, 10, 10, 64}, true},
		{"ignore delays", func(o *Options) { o.IgnoreDelays = true }, []float64{-1, -1, -1, -1, -1}, []int{5, 50, 500, 5000, 0}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustTrace(t, "f.jsonl", "", rows, tt.set)
			got := turns(d)
			if len(got) != len(tt.ts) || d.Timed != tt.timed {
				t.Fatalf("%d turns, timed %v; want %d, %v", len(got), d.Timed, len(tt.ts), tt.timed)
			}
			for i, tu := range got {
				ts := -1.0
				if tu.HasTimestamp {
					ts = tu.TimestampMS
				}
				if ts != tt.ts[i] || tu.MaxTokens != tt.maxToken[i] {
					t.Errorf("turn %d: timestamp %v, max_tokens %d; want %v, %d", i, ts, tu.MaxTokens, tt.ts[i], tt.maxToken[i])
				}
			}
		})
	}
	_, err := loadTrace(t, "f.jsonl", "", rows, func(o *Options) { o.StartOffsetMS = f(1000) })
	if err == nil || !strings.Contains(err.Error(), "all 5 rows") {
		t.Errorf("every row dropped: error %v, want one saying all 5 rows were dropped", err)
	}
}

// TestMooncakeDeterminism checks that a seed fixes the dataset, whatever
// the number of decoding goroutines, and that another seed changes it.
func TestMooncakeDeterminism(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var b strings.Builder
	for i := range 80 {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, `{"input_length": %d, "hash_ids": [%d, %d]}`+"\n", 513+rng.IntN(500), rng.IntN(5), 1000+i)
		case 1:
			fmt.Fprintf(&b, `{"input_length": %d}`+"\n", 1+rng.IntN(700))
		default:
			fmt.Fprintf(&b, `{"text_input": "row %d"}`+"\n", i)
		}
	}
	path := writeTrace(t, "d.jsonl", b.String())
	load := func(seed uint64, procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		o := traceOptions(t, path, "")
		o.Seed, o.ModelStrategy, o.OSLMean, o.OSLStddev = seed, dataset.ModelRandom, 100, 30
		d, err := Load(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return string(traceJSON(t, d))
	}
	a, b1, c := load(7, 1), load(7, 4), load(8, 2)
	if a != b1 {
		t.Error("the same seed gives different datasets with 1 and 4 goroutines")
	}
	if a == c {
		t.Error("seeds 7 and 8 give the same dataset")
	}
}

// TestMooncakeLenient checks what AIPerf's model lets through: unknown
// fields (group_id, model: mooncake rows name no model), an empty hash_ids
// list (a plain prompt), nulls for absent fields and integral floats.
func TestMooncakeLenient(t *testing.T) {
	d := mustTrace(t, "l.jsonl", "", strings.Join([]string{
		`{"input_length": 5, "hash_ids": [], "group_id": 3, "model": "row-model", "type": "mooncake_trace"}`,
		`{"input_length": 6.0, "hash_ids": null, "output_length": 2e1, "text_input": null, "delay": null}`,
	}, "\n"), nil)
	got := turns(d)
	tok := traceTok(t)
	if len(got) != 2 || got[0].Model != "model-a" || got[0].InputTokens != 5 || tok.Count(got[0].Texts[0]) != 5 ||
		got[1].InputTokens != 6 || got[1].MaxTokens != 20 {
		t.Errorf("turns %+v", got)
	}
}

// TestTraceCancel checks that a cancelled load stops with ctx's error.
func TestTraceCancel(t *testing.T) {
	o := traceOptions(t, filepath.Join("testdata", "trace", "custom_trace.jsonl"), "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, o); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}
