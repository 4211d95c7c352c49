package runner

import (
	"context"
	"time"

	"golang.org/x/sys/unix"

	"github.com/aiperf-go/aiperf/record"
)

// maxNap bounds one uninterruptible nanosleep so that cancellation is seen
// within that time.
const maxNap = 20 * time.Millisecond

// preciseSleepUntil blocks until clock reaches deadline (monotonic ns) or
// ctx is done. Go's timers wake late by up to 1 ms when the process is idle
// (the netpoller waits in whole milliseconds), which is too coarse for an
// open-loop schedule, so this sleeps with clock_nanosleep on an absolute
// CLOCK_MONOTONIC deadline. The caller should hold its OS thread
// (runtime.LockOSThread); the runtime hands the P to other goroutines while
// the thread sleeps in the kernel.
func preciseSleepUntil(ctx context.Context, clock *record.Clock, deadline int64) {
	for ctx.Err() == nil {
		wait := time.Duration(deadline - clock.Now())
		if wait <= 0 {
			return
		}
		var now unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &now); err != nil {
			coarseSleep(ctx, wait)
			return
		}
		target := unix.TimespecToNsec(now) + int64(min(wait, maxNap))
		ts := unix.NsecToTimespec(target)
		for {
			err := unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil)
			if err != unix.EINTR {
				break
			}
		}
	}
}
