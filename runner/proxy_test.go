package runner

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// countingProxy forwards TCP connections to a server and counts the bytes
// going each way: an independent count of what crossed the wire.
type countingProxy struct {
	ln       net.Listener
	up, down atomic.Int64 // client → server, server → client
	accepted atomic.Int64

	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
}

// startProxy listens on a free loopback port and forwards to target until
// the test ends.
func startProxy(t *testing.T, target string) *countingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProxy{ln: ln}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.accepted.Add(1)
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			p.wg.Add(2)
			go p.pipe(s, c, &p.up)
			go p.pipe(c, s, &p.down)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

// pipe copies src to dst, counting each read before it is forwarded (so a
// reader of dst never sees bytes not yet counted), then closes both.
func (p *countingProxy) pipe(dst, src net.Conn, n *atomic.Int64) {
	defer p.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		k, err := src.Read(buf)
		if k > 0 {
			n.Add(int64(k))
			if _, werr := dst.Write(buf[:k]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	dst.Close()
	src.Close()
}

func (p *countingProxy) url() string { return "http://" + p.ln.Addr().String() }
