package metrics

import "github.com/aiperf-go/aiperf/record"

// video sets video_inference_time and video_peak_memory from the first
// response whose job object carries each (inference_time_s,
// peak_memory_mb), as AIPerf's VideoInferenceTimeMetric and
// VideoPeakMemoryMetric read them; a record with neither gets neither.
func (c *calc) video(en *enabledSet, rs []record.Response) {
	inference, memory := en[idVideoInference], en[idVideoPeakMemory]
	for i := range rs {
		v := rs[i].Video()
		if v == nil {
			continue
		}
		if inference && v.InferenceTimeS != nil {
			c.set(idVideoInference, *v.InferenceTimeS)
			inference = false
		}
		if memory && v.PeakMemoryMB != nil {
			c.set(idVideoPeakMemory, *v.PeakMemoryMB)
			memory = false
		}
	}
}
