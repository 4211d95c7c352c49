package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/record"
)

// errCancelPolicy is the cause of a request cancelled by
// --request-cancellation-rate.
var errCancelPolicy = errors.New("cancelled by --request-cancellation-rate")

// startTurn sends rec's request as sendTurn does and returns its flight,
// for the caller to read and finish; or nil when the turn ended here: one
// under the prefill limit or drawn for cancellation is read to its end by
// sendTurn, whose limit and timer end with it.
func (r *run) startTurn(ctx context.Context, rec *record.Record, payload []byte, s *session, prefill *limiter) *flight {
	if prefill != nil || r.drawCancel(rec.RequestNum) {
		r.sendTurn(ctx, rec, payload, s, prefill)
		return nil
	}
	if r.hooks != nil && r.hooks.sticky {
		ctx = withSession(ctx, s)
	}
	return r.sender.start(ctx, rec, payload)
}

// sendTurn sends one request of session s: under the prefill limit (held
// from before sending until the first token, or the end of the response), on the session's own
// connection when sticky, and cancelled after the cancellation delay when
// the request is drawn for cancellation (§5.7): it then becomes an error
// record with code 499.
func (r *run) sendTurn(ctx context.Context, rec *record.Record, payload []byte, s *session, prefill *limiter) {
	if r.hooks != nil && r.hooks.sticky {
		ctx = withSession(ctx, s)
	}
	if prefill != nil {
		if !prefill.acquire(ctx) {
			r.sender.failErr(ctx, rec, ctx.Err())
			return
		}
		var once sync.Once
		release := func() { once.Do(prefill.release) }
		defer release()
		ctx = context.WithValue(ctx, firstTokenKey{}, release)
	}
	if !r.drawCancel(rec.RequestNum) {
		r.sender.send(ctx, rec, payload)
		return
	}
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var cancelledAt int64
	timer := time.AfterFunc(r.cfg.RequestCancellationDelay, func() {
		cancelledAt = r.clock.Now()
		cancel(errCancelPolicy)
	})
	r.sender.send(cctx, rec, payload)
	if !timer.Stop() && errors.Is(context.Cause(cctx), errCancelPolicy) && rec.Error != nil {
		rec.Error = &record.Error{Code: 499, Type: "RequestCancellationError",
			Message: fmt.Sprintf("request cancelled after %v (--request-cancellation-delay)", r.cfg.RequestCancellationDelay)}
		rec.Cancelled, rec.CancelledNS = true, cancelledAt
	}
}

// drawCancel reports whether request num is to be cancelled: a uniform draw
// from the run's seed and the request number, below the cancellation rate.
// The draw depends only on the seed and num, so it is reproducible whatever
// the order requests are sent in.
func (r *run) drawCancel(num int) bool {
	rate := r.cfg.RequestCancellationRate
	if rate <= 0 {
		return false
	}
	return uniform(r.seed^0xca9ce1, uint64(num)) < rate/100
}

// uniform maps (seed, n) to [0, 1) with the splitmix64 finaliser.
func uniform(seed, n uint64) float64 {
	z := seed + (n+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11) / math.Exp2(53)
}
