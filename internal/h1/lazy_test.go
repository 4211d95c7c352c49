package h1

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// wrapped hides a connection's file descriptor, as a wrapper that is not
// an ObservedConn does: the transport then reads it through its Read method.
type wrapped struct{ net.Conn }

func wrapDial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := defaultDialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return wrapped{c}, nil
}

// observed only watches the reads of the connection it wraps (an
// ObservedConn, as the runner's byte counter is): the transport reads the
// wrapped connection's descriptor and reports each read, never calling
// observed's Read.
type observed struct {
	net.Conn
	bytes, reads *atomic.Int64
}

func (o observed) NetConn() net.Conn { return o.Conn }
func (o observed) ObserveRead(n int) { o.bytes.Add(int64(n)); o.reads.Add(1) }
func (o observed) Read([]byte) (int, error) {
	panic("h1 read an ObservedConn through its Read")
}

func newObserved(c net.Conn) observed {
	return observed{Conn: c, bytes: new(atomic.Int64), reads: new(atomic.Int64)}
}

func observeDial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := defaultDialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return newObserved(c), nil
}

// dialers are the ways a connection is read: waiting in the poller without
// a buffer (tcp, and observed through the connection it wraps), and through
// Read (wrapped).
var dialers = []struct {
	name string
	dial func(context.Context, string, string) (net.Conn, error)
	raw  bool // read through the descriptor
}{{"tcp", nil, true}, {"wrapped", wrapDial, false}, {"observed", observeDial, true}}

// tcpPair returns both ends of a loopback TCP connection.
func tcpPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

// TestLazyReader reads what the peer wrote in small and large pieces; the
// buffer is given back as soon as its bytes are consumed; the peer's close
// is io.EOF, a reset ECONNRESET, a past deadline os.ErrDeadlineExceeded.
func TestLazyReader(t *testing.T) {
	for _, d := range dialers {
		t.Run(d.name, func(t *testing.T) {
			client, server := tcpPair(t)
			var nc net.Conn = client
			var obs observed
			switch d.name {
			case "wrapped":
				nc = wrapped{client}
			case "observed":
				obs = newObserved(client)
				nc = obs
			}
			l := newLazyReader(nc, 8)
			if (l.raw != nil) != d.raw {
				t.Fatalf("raw %v", l.raw != nil)
			}
			io.WriteString(server, "hello, world")
			got := make([]byte, 0, 12)
			for _, n := range []int{3, 3, 6} { // 6 >= 2: the buffer's rest, then straight from the conn
				p := make([]byte, n)
				m, err := l.Read(p)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, p[:m]...)
				if l.buffered() == 0 && l.buf != nil {
					t.Error("empty but holding a buffer")
				}
			}
			for len(got) < 12 {
				p := make([]byte, 16)
				m, err := l.Read(p)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, p[:m]...)
			}
			if string(got) != "hello, world" || l.buf != nil {
				t.Fatalf("read %q, holding a buffer %v", got, l.buf != nil)
			}
			if obs.bytes != nil && (obs.bytes.Load() != 12 || obs.reads.Load() < 2) {
				t.Errorf("observed %d bytes in %d reads, want 12 in 2 or more", obs.bytes.Load(), obs.reads.Load())
			}

			nc.SetReadDeadline(aLongTimeAgo)
			if _, err := l.Read(make([]byte, 4)); !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("past deadline: %v", err)
			}
			nc.SetReadDeadline(time.Time{})

			server.(*net.TCPConn).SetLinger(0)
			io.WriteString(server, "x")
			time.Sleep(10 * time.Millisecond)
			server.Close()
			time.Sleep(10 * time.Millisecond)
			b := make([]byte, 4)
			if n, err := l.Read(b); n != 1 || err != nil {
				t.Errorf("read before the reset: %d %v", n, err)
			}
			if _, err := l.Read(b); !errors.Is(err, syscall.ECONNRESET) {
				t.Errorf("after a reset: %v", err)
			}
			if obs.bytes != nil && obs.bytes.Load() != 13 {
				t.Errorf("observed %d bytes, want 13 (errors and deadlines count none)", obs.bytes.Load())
			}
		})
	}
	t.Run("eof", func(t *testing.T) {
		client, server := tcpPair(t)
		l := newLazyReader(client, 8)
		server.Close()
		if _, err := l.Read(make([]byte, 4)); err != io.EOF {
			t.Errorf("after the peer's close: %v, want io.EOF", err)
		}
	})
}

// TestBlockedStreamsHoldNoReadBuffer: on plain TCP, observed or not, a
// stream waiting for data holds no read buffer; read through Read
// (wrapped) it holds one.
func TestBlockedStreamsHoldNoReadBuffer(t *testing.T) {
	const n, size = 100, 64 << 10
	srv := startRaw(t, func(c net.Conn, br *bufio.Reader) {
		readRequest(br)
		io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n")
		br.ReadByte() // until the client goes away (io.Copy would hold a pooled buffer)
	})
	perStream := map[string]float64{}
	// A first round warms up what the runtime and the server allocate once.
	// Two collections before each measure free pooled buffers too
	// (sync.Pool keeps them one cycle).
	for _, d := range append(dialers[1:], dialers...) {
		tr := &Transport{DialContext: d.dial, ReadBufferSize: size}
		ctx, cancel := context.WithCancel(context.Background())
		runtime.GC()
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		wait := openStreams(t, ctx, tr, srv.url(), n)
		time.Sleep(20 * time.Millisecond) // all blocked in the second Read
		runtime.GC()
		runtime.GC()
		var during runtime.MemStats
		runtime.ReadMemStats(&during)
		cancel()
		wait()
		perStream[d.name] = float64(int64(during.HeapAlloc)-int64(before.HeapAlloc)) / n
	}
	// Everything but the read buffer costs the same both ways.
	if d := perStream["wrapped"] - perStream["tcp"]; d < size*0.9 || d > size*1.1 || perStream["tcp"] > size/4 {
		t.Errorf("heap per blocked stream: %.0f bytes on tcp, %.0f wrapped; want a read buffer (%d) apart, and tcp well under one",
			perStream["tcp"], perStream["wrapped"], size)
	}
	if perStream["observed"] > size/4 {
		t.Errorf("heap per blocked observed stream: %.0f bytes, want well under a read buffer (%d)", perStream["observed"], size)
	}
	t.Logf("heap per blocked stream: %.0f bytes on tcp, %.0f observed, %.0f wrapped (%d-byte read buffers)",
		perStream["tcp"], perStream["observed"], perStream["wrapped"], size)
}
