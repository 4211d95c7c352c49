package custom

import (
	"context"
	"errors"

	"github.com/aiperf-go/aiperf/dataset"
)

// randomPoolFormat is the random_pool type (stub: replaced by its implementation).
var randomPoolFormat = format{
	name:   "random_pool",
	detect: func(string) bool { return false },
	load: func(context.Context, *Options) (*dataset.Dataset, error) {
		return nil, errors.New("not implemented")
	},
}
