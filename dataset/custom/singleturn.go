package custom

import (
	"context"
	"errors"

	"github.com/aiperf-go/aiperf/dataset"
)

// singleTurnFormat is the single_turn type (stub: replaced by its implementation).
var singleTurnFormat = format{
	name:   "single_turn",
	detect: func(string) bool { return false },
	load: func(context.Context, *Options) (*dataset.Dataset, error) {
		return nil, errors.New("not implemented")
	},
}
