package runner

import (
	"context"
	"sync"
	"time"
)

// limiter is a counting semaphore whose limit can rise from 1 to its target
// over a ramp (§5.2: +1 at evenly spaced steps, the target reached at the
// end of the ramp). A nil *limiter admits everything.
type limiter struct {
	slots chan struct{}
	stopc chan struct{}
	wg    sync.WaitGroup
}

// newLimiter returns a limiter of n slots, or nil for n <= 0. With a ramp,
// n-1 slots start held and a goroutine, owned by the limiter and ended by
// stop, frees one at each step.
func newLimiter(n int, ramp time.Duration) *limiter {
	if n <= 0 {
		return nil
	}
	l := &limiter{slots: make(chan struct{}, n), stopc: make(chan struct{})}
	if ramp <= 0 || n == 1 {
		return l
	}
	for range n - 1 {
		l.slots <- struct{}{}
	}
	start := time.Now()
	l.wg.Go(func() {
		for k := 1; k < n; k++ {
			t := time.NewTimer(time.Until(start.Add(rampStep(ramp, k, n))))
			select {
			case <-t.C:
				<-l.slots
			case <-l.stopc:
				t.Stop()
				return
			}
		}
	})
	return l
}

// acquire takes a slot, waiting until one is free; false when ctx ended
// first.
func (l *limiter) acquire(ctx context.Context) bool {
	if l == nil {
		return true
	}
	select {
	case l.slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// release frees a slot taken by acquire.
func (l *limiter) release() {
	if l != nil {
		<-l.slots
	}
}

// stop ends the ramp goroutine and waits for it.
func (l *limiter) stop() {
	if l == nil {
		return
	}
	close(l.stopc)
	l.wg.Wait()
}
