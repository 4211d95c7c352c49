//go:build !linux

package runner

import (
	"context"
	"time"

	"github.com/aiperf-go/aiperf/record"
)

// preciseSleepUntil blocks until clock reaches deadline (monotonic ns) or
// ctx is done. Off Linux it uses Go's timers, which may wake up to about a
// millisecond late.
func preciseSleepUntil(ctx context.Context, clock *record.Clock, deadline int64) {
	if wait := time.Duration(deadline - clock.Now()); wait > 0 {
		coarseSleep(ctx, wait)
	}
}
