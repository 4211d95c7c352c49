package runner

import (
	"reflect"
	"testing"

	"github.com/aiperf-go/aiperf/record"
)

// TestStreamLogKeepsEveryField logs responses with and without text,
// reasoning that starts mid-stream, usage and an output object, and gets
// exactly them back.
func TestStreamLogKeepsEveryField(t *testing.T) {
	n := int64(5)
	want := []record.Response{
		{PerfNS: 10, Text: "He"},
		{PerfNS: 20},
		{PerfNS: 30, Reasoning: "think", Text: "llo"},
		{PerfNS: 40, Reasoning: "ing"},
		{PerfNS: 50, Text: "!", Output: &record.Output{Images: 2, Media: true}},
		{PerfNS: 60, Usage: &record.Usage{CompletionTokens: &n}},
	}
	for _, osl := range []int{0, 3, 100} {
		l := new(streamLog)
		if l.len() != 0 || l.responses() != nil {
			t.Fatalf("an empty log has %d responses: %v", l.len(), l.responses())
		}
		for i := range want {
			r := want[i] // a copy, as streamRead.read passes its own
			l.add(&r, osl)
		}
		got := l.responses()
		if l.len() != len(want) || l.lastAt() != 60 || !reflect.DeepEqual(got, want) {
			t.Errorf("osl %d: logged %d, last at %d, got\n%+v\nwant\n%+v", osl, l.len(), l.lastAt(), got, want)
		}
	}
}
