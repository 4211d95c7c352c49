package custom

import (
	"context"
	"errors"

	"github.com/aiperf-go/aiperf/dataset"
)

// mooncakeFormat is the mooncake_trace type (stub: replaced by its implementation).
var mooncakeFormat = format{
	name:   "mooncake_trace",
	detect: func(string) bool { return false },
	load: func(context.Context, *Options) (*dataset.Dataset, error) {
		return nil, errors.New("not implemented")
	},
}
