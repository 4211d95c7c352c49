package runner

import (
	"slices"
	"testing"

	"github.com/aiperf-go/aiperf/record"
)

func TestKeepLastResponse(t *testing.T) {
	three := func() []record.Response {
		return []record.Response{{PerfNS: 10, Text: "a"}, {PerfNS: 20, Text: "b"}, {PerfNS: 30, Usage: &record.Usage{}}}
	}
	for _, tc := range []struct {
		name string
		rec  record.Record
		want []int64 // the PerfNS of the responses kept
	}{
		{"valid: the last one", record.Record{Responses: three()}, []int64{30}},
		{"failed: all", record.Record{Responses: three(), Error: &record.Error{Type: "X"}}, []int64{10, 20, 30}},
		{"a time not positive: all, so that it stays invalid", record.Record{Responses: []record.Response{{PerfNS: 0}, {PerfNS: 5}}}, []int64{0, 5}},
		{"one: itself", record.Record{Responses: []record.Response{{PerfNS: 7}}}, []int64{7}},
		{"none", record.Record{}, nil},
	} {
		valid := tc.rec.Valid()
		keepLastResponse(&tc.rec)
		var got []int64
		for _, r := range tc.rec.Responses {
			got = append(got, r.PerfNS)
		}
		if !slices.Equal(got, tc.want) || tc.rec.Valid() != valid {
			t.Errorf("%s: kept %v (valid %v), want %v (valid %v)", tc.name, got, tc.rec.Valid(), tc.want, valid)
		}
	}
	rec := record.Record{Responses: three()}
	keepLastResponse(&rec)
	if rec.Responses[0].Usage == nil || cap(rec.Responses) != 1 {
		t.Errorf("the kept response is not a copy of the last in its own array: %+v (cap %d)", rec.Responses, cap(rec.Responses))
	}
}
