package runner

import (
	"context"
	"io"
	"testing"
	"unsafe"

	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/internal/sse"
	"github.com/aiperf-go/aiperf/record"
)

// TestResponsesCap checks the capacity a stream's responses get at the
// first one: requested tokens plus three (role, finish, usage), at most 32,
// and 1 when no output length was requested.
func TestResponsesCap(t *testing.T) {
	for _, tc := range []struct{ osl, want int }{
		{0, 1}, {-1, 1}, {1, 4}, {20, 23}, {29, 32}, {30, 32}, {4000, 32},
	} {
		if got := responsesCap(tc.osl); got != tc.want {
			t.Errorf("responsesCap(%d) = %d, want %d", tc.osl, got, tc.want)
		}
	}
}

// fakeMessages replays msgs, then io.EOF, noting each backing array that
// rec's responses had when the next message was asked for.
type fakeMessages struct {
	msgs   []sse.Message
	i      int
	rec    *record.Record
	arrays map[*record.Response]bool
}

func (f *fakeMessages) Next() (sse.Message, error) {
	if len(f.rec.Responses) > 0 {
		f.arrays[unsafe.SliceData(f.rec.Responses)] = true
	}
	if f.i == len(f.msgs) {
		return sse.Message{}, io.EOF
	}
	f.i++
	return f.msgs[f.i-1], nil
}

// TestStreamResponsesAllocatedOnce reads a stream of 20 content messages
// and a usage message twice: with 20 requested output tokens its responses
// live in one array from the first; with none they grow by doubling from
// one element (capacities 1, 2, 4, 8, 16, 32: six arrays). The responses
// are the same either way.
func TestStreamResponsesAllocatedOnce(t *testing.T) {
	ep, err := endpoint.Lookup("chat")
	if err != nil {
		t.Fatal(err)
	}
	s := &sender{ep: ep, clock: record.NewClock()}
	var msgs []sse.Message
	for i := range 20 {
		msgs = append(msgs, sse.Message{PerfNS: int64(i + 1), Data: []byte(`{"choices":[{"index":0,"delta":{"content":"x"}}]}`)})
	}
	msgs = append(msgs, sse.Message{PerfNS: 21, Data: []byte(`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":20,"total_tokens":25}}`)})
	for _, tc := range []struct{ osl, arrays int }{{0, 6}, {20, 1}} {
		rec := &record.Record{RequestedOutputTokens: tc.osl}
		rd := &fakeMessages{msgs: msgs, rec: rec, arrays: map[*record.Response]bool{}}
		s.readMessages(context.Background(), rec, rd)
		if rec.Error != nil {
			t.Fatalf("osl %d: %+v", tc.osl, *rec.Error)
		}
		if len(rec.Responses) != 21 || rec.Responses[0].Text != "x" || rec.Responses[0].PerfNS != 1 ||
			rec.Responses[20].Usage == nil || rec.Responses[20].PerfNS != 21 || rec.EndNS != 21 {
			t.Errorf("osl %d: %d responses, first %+v, last %+v, end %d", tc.osl, len(rec.Responses), rec.Responses[0], rec.Responses[len(rec.Responses)-1], rec.EndNS)
		}
		if len(rd.arrays) != tc.arrays {
			t.Errorf("osl %d: the responses lived in %d arrays, want %d", tc.osl, len(rd.arrays), tc.arrays)
		}
	}
}
