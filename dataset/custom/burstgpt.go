package custom

import (
	"context"
	"errors"

	"github.com/aiperf-go/aiperf/dataset"
)

// burstGPTFormat is the burst_gpt_trace type (stub: replaced by its implementation).
var burstGPTFormat = format{
	name:   "burst_gpt_trace",
	detect: func(string) bool { return false },
	load: func(context.Context, *Options) (*dataset.Dataset, error) {
		return nil, errors.New("not implemented")
	},
}
