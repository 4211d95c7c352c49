package runner

import (
	"context"
	"net"
)

// maxDialsInFlight bounds the dials a transport runs at once. Each takes
// an 8 KiB goroutine stack (dialStack): at the start of a 10,000-stream
// run, unbounded, ~8,500 dials were in flight together, 70 MB of stacks
// that the runtime then kept as heap for the rest of the run (issue 19).
// 1,024 dials in flight open ~20,000 connections a second over loopback
// on two cores, the CPU's rate, and 5,000 a second at a 200 ms round
// trip; a burst beyond that would overflow a server's listen backlog
// (Linux's default somaxconn is 4,096) and wait out SYN retransmits
// instead. A request waiting for a slot is waiting for its connection:
// it counts in http_req_blocked.
const maxDialsInFlight = 1024

// asideDialer dials each connection on a goroutine of its own, a bounded
// number at once, and waits for it. The resolver's frames under
// Dialer.DialContext (net.Resolver.internetAddrList and below) would
// otherwise grow the sender's goroutine stack from 4 to 8 KiB once, and a
// waiting stream, using ~3 KB, never shrinks it back (issue 19: 40 MB at
// 10,000 streams).
type asideDialer struct {
	d     *net.Dialer
	slots chan struct{}
}

// newAsideDialer returns an asideDialer dialing with d, at most inFlight
// dials at once.
func newAsideDialer(d *net.Dialer, inFlight int) *asideDialer {
	return &asideDialer{d: d, slots: make(chan struct{}, inFlight)}
}

// dial waits for a free slot (or ctx), then dials addr on a goroutine of
// its own and returns its connection.
func (a *asideDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	select {
	case a.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	type dialed struct {
		c   net.Conn
		err error
	}
	done := make(chan dialed, 1)
	go func() {
		defer func() { <-a.slots }()
		dialStack()
		c, err := a.d.DialContext(ctx, network, addr)
		done <- dialed{c, err}
	}()
	r := <-done
	return r.c, r.err
}

// dialStack takes a 6 KiB frame, so that a dial goroutine's stack grows
// to the 8 KiB its dial needs at once, in place of the 4 KiB it starts
// with: an intermediate 4 KiB stack, freed while the 4 KiB stacks of
// the streams were allocated beside it, would leave a hole of 4 KiB per
// connection in the runtime's stack spans for the rest of the run.
//
//go:noinline
func dialStack() byte {
	var pad [6 << 10]byte
	return lastByte(pad[:])
}

// lastByte returns b's last byte; not inlined, so that dialStack's frame
// is kept.
//
//go:noinline
func lastByte(b []byte) byte { return b[len(b)-1] }
