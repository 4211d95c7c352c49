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

// fakeMessages replays msgs, then io.EOF, noting whether rec had any
// responses set while the stream was read.
type fakeMessages struct {
	msgs  []sse.Message
	i     int
	rec   *record.Record
	early bool
}

func (f *fakeMessages) Next() (sse.Message, error) {
	if f.rec.Responses != nil {
		f.early = true
	}
	if f.i == len(f.msgs) {
		return sse.Message{}, io.EOF
	}
	f.i++
	return f.msgs[f.i-1], nil
}

// TestStreamResponsesBuiltAtTheEnd reads a stream of 20 content messages
// and a usage message, with and without a requested output length: the
// record gets its responses when the stream ends, in one array of exactly
// their number, the texts back to back in one string.
func TestStreamResponsesBuiltAtTheEnd(t *testing.T) {
	ep, err := endpoint.Lookup("chat")
	if err != nil {
		t.Fatal(err)
	}
	s := &sender{ep: ep, clock: record.NewClock()}
	var msgs []sse.Message
	for i := range 20 {
		msgs = append(msgs, sse.Message{PerfNS: int64(i + 1), Data: []byte(`{"choices":[{"index":0,"delta":{"content":"x` + string(rune('a'+i)) + `"}}]}`)})
	}
	msgs = append(msgs, sse.Message{PerfNS: 21, Data: []byte(`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":20,"total_tokens":25}}`)})
	for _, osl := range []int{0, 20} {
		rec := &record.Record{RequestedOutputTokens: osl}
		rd := &fakeMessages{msgs: msgs, rec: rec}
		s.readMessages(context.Background(), rec, rd)
		if rec.Error != nil {
			t.Fatalf("osl %d: %+v", osl, *rec.Error)
		}
		rs := rec.Responses
		if len(rs) != 21 || cap(rs) != 21 || rs[0].Text != "xa" || rs[0].PerfNS != 1 || rs[19].Text != "xt" ||
			rs[20].Text != "" || rs[20].Usage == nil || *rs[20].Usage.CompletionTokens != 20 || rs[20].PerfNS != 21 || rec.EndNS != 21 {
			t.Errorf("osl %d: %d responses (cap %d), first %+v, last %+v, end %d", osl, len(rs), cap(rs), rs[0], rs[len(rs)-1], rec.EndNS)
			continue
		}
		if rd.early {
			t.Errorf("osl %d: the record had responses while the stream was read", osl)
		}
		if unsafe.Pointer(unsafe.StringData(rs[1].Text)) != unsafe.Add(unsafe.Pointer(unsafe.StringData(rs[0].Text)), len(rs[0].Text)) {
			t.Errorf("osl %d: the texts are not back to back in one string", osl)
		}
	}
}
