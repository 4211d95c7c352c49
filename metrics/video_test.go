package metrics

import (
	"testing"

	"github.com/aiperf-go/aiperf/record"
)

// TestVideoMetrics checks video_inference_time and video_peak_memory
// against hand-computed values: the first job object carrying each field
// gives it, the time is shown in ms (3.25 s = 3250 ms), and the metrics
// apply only to a run that produces video.
func TestVideoMetrics(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	rec := &record.Record{StartNS: 1_000, InputTokens: 5, Responses: []record.Response{
		{PerfNS: 2_001_000, Output: &record.Output{Media: true, Video: &record.Video{ID: "v", Status: "queued"}}},
		{PerfNS: 3_500_001_000, Output: &record.Output{Media: true, Video: &record.Video{ID: "v", Status: "completed", InferenceTimeS: f(3.25), PeakMemoryMB: f(20480.5)}}},
		{PerfNS: 3_600_001_000, Output: &record.Output{Media: true, Video: &record.Video{ID: "v", Status: "completed", InferenceTimeS: f(9), PeakMemoryMB: f(1)}}},
	}}
	tests := []struct {
		name string
		cfg  Config
		want map[string]float64
	}{
		{"video", Config{ProducesVideo: true, TokenizesInput: true}, map[string]float64{
			"input_sequence_length": 5, "request_latency": 3600, "video_inference_time": 3250, "video_peak_memory": 20480.5}},
		{"not video", Config{TokenizesInput: true}, map[string]float64{"input_sequence_length": 5, "request_latency": 3600}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]float64{}
			var order []string
			for _, v := range Compute(&tc.cfg, rec) {
				got[v.Tag] = v.Value
				order = append(order, v.Tag)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("values %v, want %v", got, tc.want)
			}
			for k, w := range tc.want {
				if g, ok := got[k]; !ok || g != w {
					t.Errorf("%s = %v, want %v", k, g, w)
				}
			}
			if tc.cfg.ProducesVideo && (order[2] != "video_inference_time" || order[3] != "video_peak_memory") {
				t.Errorf("order %v: video metrics must follow request_latency", order)
			}
		})
	}
	m, _ := Lookup("video_inference_time")
	p, _ := Lookup("video_peak_memory")
	video := &Config{ProducesVideo: true}
	if !m.Console(video) || !p.Console(video) || m.Console(&Config{}) || m.DisplayUnit != "ms" || p.DisplayUnit != "MB" ||
		m.Header != "Video Inference Time" || p.Header != "Video Peak Memory" || m.DisplayOrder != 310 || p.DisplayOrder != 311 {
		t.Errorf("catalogue: %+v %+v", m, p)
	}
}

// TestVideoMetricsMissing: a job object without the fields gives neither.
func TestVideoMetricsMissing(t *testing.T) {
	rec := &record.Record{StartNS: 1, Responses: []record.Response{{PerfNS: 10, Output: &record.Output{Media: true, Video: &record.Video{Status: "completed"}}}}}
	for _, v := range Compute(&Config{ProducesVideo: true}, rec) {
		if v.Tag != "request_latency" {
			t.Errorf("unexpected %s", v.Tag)
		}
	}
}
