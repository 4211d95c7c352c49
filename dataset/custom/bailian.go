package custom

import (
	"context"
	"errors"

	"github.com/aiperf-go/aiperf/dataset"
)

// bailianFormat is the bailian_trace type (stub: replaced by its implementation).
var bailianFormat = format{
	name:   "bailian_trace",
	detect: func(string) bool { return false },
	load: func(context.Context, *Options) (*dataset.Dataset, error) {
		return nil, errors.New("not implemented")
	},
}
