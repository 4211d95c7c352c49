package runner

import (
	"context"
	"net"
)

// dialAside dials on a goroutine of its own and waits for it. The
// resolver's frames under Dialer.DialContext (net.Resolver.internetAddrList
// and below) would otherwise grow the sender's goroutine stack from 4 to
// 8 KiB once, and a waiting stream, using ~3 KB, never shrinks it back
// (issue 19: 40 MB at 10,000 streams).
func dialAside(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	type dialed struct {
		c   net.Conn
		err error
	}
	done := make(chan dialed, 1)
	go func() {
		dialStack()
		c, err := d.DialContext(ctx, network, addr)
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
