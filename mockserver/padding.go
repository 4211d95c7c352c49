package mockserver

import (
	"strconv"
)

// paddingBuckets are the upper bounds of the padding histograms (vLLM's
// request queue time buckets).
var paddingBuckets = [...]float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920}

// paddingSeriesPerAdapter is the series one padding label value adds: the
// buckets, +Inf, _sum and _count.
const paddingSeriesPerAdapter = len(paddingBuckets) + 3

// maxPaddingSeries bounds Config.MetricsPadding.
const maxPaddingSeries = 1_000_000

// appendPadding writes at least n more series (Config.MetricsPadding), so
// that /metrics is as large as a big server's (vLLM with many LoRA
// adapters, several engines): one histogram family with a label value per
// simulated adapter, whose observations follow the requests served so far
// (each adapter has seen requests/adapters of them, spread over the
// buckets), so every scrape under load differs from the last.
func appendPadding(b []byte, n int, requests uint64) []byte {
	if n <= 0 {
		return b
	}
	adapters := (n + paddingSeriesPerAdapter - 1) / paddingSeriesPerAdapter
	const name = "vllm:lora_request_queue_time_seconds"
	b = appendFamily(b, name, "histogram", "Time spent waiting in the queue, by LoRA adapter (padding for scrape benchmarks).")
	for a := 0; a < adapters; a++ {
		label := `model_name="mock-model",lora_name="adapter-` + strconv.Itoa(a) + `"`
		seen := requests / uint64(adapters)
		if uint64(a) < requests%uint64(adapters) {
			seen++
		}
		var cum uint64
		for i, le := range paddingBuckets {
			// Spread over the buckets: a share halving per bucket.
			cum += seen >> (i + 1)
			b = appendSample(b, name+"_bucket", label+`,le="`+strconv.FormatFloat(le, 'g', -1, 64)+`"`, float64(cum))
		}
		b = appendSample(b, name+"_bucket", label+`,le="+Inf"`, float64(seen))
		b = appendSample(b, name+"_sum", label, float64(seen)*0.42)
		b = appendSample(b, name+"_count", label, float64(seen))
	}
	return b
}
