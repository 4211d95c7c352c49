package mockserver

import (
	"bytes"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func TestPadding(t *testing.T) {
	for _, tc := range []struct {
		n        int
		requests uint64
	}{{1, 0}, {100, 7}, {2000, 12345}} {
		b := appendPadding(nil, tc.n, tc.requests)
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		f := fams["vllm:lora_request_queue_time_seconds"]
		adapters := len(f.GetMetric())
		if series := adapters * paddingSeriesPerAdapter; series < tc.n || series >= tc.n+paddingSeriesPerAdapter {
			t.Errorf("n=%d: %d series", tc.n, series)
		}
		var total uint64
		for _, m := range f.GetMetric() {
			h := m.GetHistogram()
			total += h.GetSampleCount()
			prev := uint64(0)
			for _, bk := range h.GetBucket() {
				if bk.GetCumulativeCount() < prev || bk.GetCumulativeCount() > h.GetSampleCount() {
					t.Fatalf("n=%d: buckets not cumulative: %v", tc.n, h)
				}
				prev = bk.GetCumulativeCount()
			}
		}
		if total != tc.requests {
			t.Errorf("n=%d: adapters saw %d requests, want %d", tc.n, total, tc.requests)
		}
	}
	if b := appendPadding(nil, 0, 5); len(b) != 0 {
		t.Error("padding 0 wrote series")
	}
}
