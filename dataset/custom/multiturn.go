package custom

import (
	"context"
	"errors"

	"github.com/aiperf-go/aiperf/dataset"
)

// multiTurnFormat is the multi_turn type (stub: replaced by its implementation).
var multiTurnFormat = format{
	name:   "multi_turn",
	detect: func(string) bool { return false },
	load: func(context.Context, *Options) (*dataset.Dataset, error) {
		return nil, errors.New("not implemented")
	},
}
