//go:build timing && !race && linux

package runner

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// floorPace is the schedule tests' floor: the least an open-loop client
// can do to keep a schedule. On a locked OS thread it sleeps to each send
// time of sched (offsets from its start) with clock_nanosleep on an
// absolute CLOCK_MONOTONIC deadline, notes how late it woke, and hands the
// send to a goroutine of its own, which writes a prebuilt non-streaming
// chat request to the mock at base on an idle raw keep-alive connection (a
// new one when none is idle) and reads the reply. It returns each send's
// lateness (ns), measured as our pacer measures its own: when the send
// leaves the pacing loop.
func floorPace(ctx context.Context, base string, sched []time.Duration) ([]int64, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("floor pace: %w", err)
	}
	body := []byte(`{"model":"mock-model","messages":[{"role":"user","content":"floor"}]}`)
	req := []byte(fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
		"Content-Length: %d\r\n\r\n%s", u.Host, len(body), body))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		idle []*floorConn
		errs []error
	)
	send := func() {
		mu.Lock()
		var c *floorConn
		if n := len(idle); n > 0 {
			c, idle = idle[n-1], idle[:n-1]
		}
		mu.Unlock()
		err := func() error {
			if c == nil {
				var d net.Dialer
				conn, err := d.DialContext(ctx, "tcp", u.Host)
				if err != nil {
					return err
				}
				c = newFloorConn(conn)
			}
			if _, err := c.conn.Write(req); err != nil {
				return err
			}
			var s floorStream
			return readResponse(c.br, &s)
		}()
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err != nil:
			errs = append(errs, err)
			if c != nil {
				c.conn.Close()
			}
		default:
			idle = append(idle, c)
		}
	}

	late := make([]int64, 0, len(sched))
	runtime.LockOSThread()
	var start unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &start); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("floor pace: %w", err)
	}
	for _, at := range sched {
		deadline := unix.TimespecToNsec(start) + int64(at)
		ts := unix.NsecToTimespec(deadline)
		for unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil) == unix.EINTR {
		}
		var now unix.Timespec
		_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &now)
		late = append(late, unix.TimespecToNsec(now)-deadline)
		wg.Go(send)
	}
	runtime.UnlockOSThread()
	wg.Wait()
	for _, c := range idle {
		c.conn.Close()
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("floor pace: %d of %d sends failed: %w", len(errs), len(sched), errs[0])
	}
	return late, nil
}

// evenSchedule returns n send times rate per second apart, from 0.
func evenSchedule(n int, rate float64) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(float64(i) * float64(time.Second) / rate)
	}
	return out
}
