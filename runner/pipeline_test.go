package runner

import (
	"reflect"
	"slices"
	"testing"

	"github.com/aiperf-go/aiperf/metrics"
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

// TestPipelineHandsTheSinkComputedValues runs records through the pipeline
// and checks that the sink sees, for each, what metrics.Compute gives, even
// though the sink's array is reused; a copy taken with cloneValues stays
// intact after later records.
func TestPipelineHandsTheSinkComputedValues(t *testing.T) {
	cfg := &metrics.Config{Streaming: true, ProducesTokens: true}
	recs := make([]*record.Record, 50)
	for i := range recs {
		start := int64(1000 + i)
		recs[i] = &record.Record{Phase: record.PhaseProfiling, StartNS: start, EndNS: start + 300, Streaming: true, InputTokens: 5,
			Responses: []record.Response{{PerfNS: start + 100 + int64(i), Text: "a"}, {PerfNS: start + 200, Text: "b"}, {PerfNS: start + 300, Text: "c"}}}
	}
	want := map[*record.Record][]metrics.RecordValue{}
	for _, rec := range recs {
		want[rec] = metrics.Compute(cfg, rec)
	}
	kept := map[*record.Record][]metrics.RecordValue{}
	p := startPipeline(2, func(rec *record.Record) *metrics.Values { return metrics.ComputeValues(cfg, rec) }, func(pr processed) {
		if !reflect.DeepEqual(pr.vals, want[pr.rec]) {
			t.Errorf("record %d: sink got %+v, want %+v", pr.rec.StartNS, pr.vals, want[pr.rec])
		}
		kept[pr.rec] = cloneValues(pr.vals)
	})
	for _, rec := range recs {
		p.submit(rec)
	}
	p.close()
	if len(kept) != len(recs) {
		t.Fatalf("the sink saw %d records, want %d", len(kept), len(recs))
	}
	for rec, vals := range kept {
		if !reflect.DeepEqual(vals, want[rec]) {
			t.Errorf("record %d: the kept copy changed to %+v", rec.StartNS, vals)
		}
	}
}
