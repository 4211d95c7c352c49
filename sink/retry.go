package sink

import (
	"context"
	"errors"
	"time"

	"gocloud.dev/gcerrors"
)

// backoff is the wait before retry n (0-based): 100 ms doubling to 5 s.
func backoff(n int) time.Duration {
	d := 100 * time.Millisecond
	for i := 0; i < n && d < 5*time.Second; i++ {
		d *= 2
	}
	return min(d, 5*time.Second)
}

// permanent reports errors that retrying cannot fix: a missing bucket,
// denied access, an invalid request, or an object that already exists.
func permanent(err error) bool {
	switch gcerrors.Code(err) {
	case gcerrors.NotFound, gcerrors.PermissionDenied, gcerrors.InvalidArgument, gcerrors.FailedPrecondition, gcerrors.Unimplemented:
		return true
	}
	return errors.Is(err, context.Canceled)
}

// sleepCtx waits d or until ctx is done, reporting whether it waited fully.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
