package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/record"
)

// DefaultShutdownGrace is --shutdown-grace's default: well inside the 30 s
// Kubernetes gives a pod between SIGTERM and SIGKILL.
const DefaultShutdownGrace = 10 * time.Second

// errShutdownGrace ends the stores of an interrupted run.
var errShutdownGrace = errors.New("shutdown grace (--shutdown-grace) over")

// storeContext returns the context of the stores that follow the sending:
// not cancelled by ctx, since an interrupted run still stores its results,
// but ended grace after ctx is (counted from the cancellation, whether it
// came during the run or during the final upload). So a signal bounds the
// rest of the shutdown, and the upload wait after one is the lesser of
// --upload-grace-period and --shutdown-grace. release frees its timer.
func storeContext(ctx context.Context, grace time.Duration) (sctx context.Context, release func()) {
	sctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	var mu sync.Mutex
	var timer *time.Timer
	released := false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !released {
			timer = time.AfterFunc(grace, func() { cancel(errShutdownGrace) })
		}
	})
	return sctx, func() {
		stop()
		mu.Lock()
		released = true
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		cancel(nil)
	}
}

// interruptedBy reports whether a request's context was cancelled by the
// user (a signal, or the caller's ctx) rather than by the run itself: the
// grace period of a duration-bound phase (whose requests AIPerf leaves
// out), the failure window or stability mode.
func interruptedBy(ctx context.Context) bool {
	if ctx.Err() == nil {
		return false
	}
	cause := context.Cause(ctx)
	return !errors.Is(cause, errGraceExpired) && !errors.Is(cause, errTargetDown) && !errors.Is(cause, errStable)
}

// markCancelled turns the record of a request that was in flight when the
// run was interrupted into a cancellation record: it counts in the error
// summary and is stored with the others, so every request the server saw
// has a record.
func markCancelled(ctx context.Context, rec *record.Record, now int64) {
	rec.Error = &record.Error{Code: 499, Type: "CancelledError",
		Message: fmt.Sprintf("request in flight when the run was interrupted (%v)", context.Cause(ctx))}
	rec.Cancelled, rec.CancelledNS = true, now
	if rec.EndNS == 0 {
		rec.EndNS = now
	}
}
