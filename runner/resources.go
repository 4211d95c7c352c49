package runner

import (
	"time"

	"github.com/aiperf-go/aiperf/metrics"
)

// usage is the client process's own resource use.
type usage struct {
	user, sys time.Duration
	maxRSSMB  float64
}

// latenessMS summarises schedule lateness samples (ns) as p50, p99 and max
// in milliseconds.
func latenessMS(ns []int64) (p50, p99, maxMS float64) {
	if len(ns) == 0 {
		return 0, 0, 0
	}
	v := make([]float64, len(ns))
	for i, x := range ns {
		v[i] = float64(x) / 1e6
		maxMS = max(maxMS, v[i])
	}
	return metrics.Percentile(v, 50), metrics.Percentile(v, 99), maxMS
}
