package runner

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestAsideDialerBoundsDialsInFlight holds every dial in its Control hook
// and checks that no more than the bound are ever in it together, that
// all of them connect once released, and that a dial waiting for a slot
// gives up with its context.
func TestAsideDialerBoundsDialsInFlight(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	const bound, dials = 3, 10
	var inside, most atomic.Int32
	release := make(chan struct{})
	d := &net.Dialer{Control: func(string, string, syscall.RawConn) error {
		n := inside.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-release
		inside.Add(-1)
		return nil
	}}
	a := newAsideDialer(d, bound)
	var wg sync.WaitGroup
	var connected atomic.Int32
	for range dials {
		wg.Go(func() {
			c, err := a.dial(context.Background(), "tcp", ln.Addr().String())
			if err != nil {
				t.Error(err)
				return
			}
			connected.Add(1)
			c.Close()
		})
	}
	for inside.Load() < bound {
		time.Sleep(time.Millisecond)
	}
	// Every slot is taken: a dial with a short context gives up waiting.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := a.dial(ctx, "tcp", ln.Addr().String()); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("dial while every slot is taken = %v, want the context's deadline", err)
	}
	close(release)
	wg.Wait()
	if got := most.Load(); got != bound {
		t.Errorf("at most %d dials were in flight together, want %d", got, bound)
	}
	if got := connected.Load(); got != dials {
		t.Errorf("%d dials connected, want %d", got, dials)
	}
}
