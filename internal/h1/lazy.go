package h1

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
)

// lazyReader reads a connection through a buffer it holds only while
// bytes read from the connection wait to be consumed: a stream blocked
// waiting for its next event holds none. It is what a connection's small
// bufio.Reader (the one http.ReadResponse needs) reads from.
//
// On a plain TCP connection (one with a file descriptor) it waits for data
// with syscall.RawConn.Read, which parks the goroutine in the network
// poller without a buffer, and takes a pooled buffer only for the read
// system call itself: the same calls as net.Conn.Read, deadlines included.
// A wrapper that is an ObservedConn (the runner's byte counter) is read the
// same way through the connection it wraps, each read reported to it. Other
// connections (TLS, other wrappers) are read with their own Read, holding a
// pooled buffer while blocked.
//
// Only the goroutine using the connection calls it.
type lazyReader struct {
	nc   net.Conn
	raw  syscall.RawConn // nil: read through nc.Read
	obs  ObservedConn    // nc when it is one read through raw, else nil
	size int             // of the pooled buffers

	buf  *[]byte // pooled; nil while empty
	r, w int     // unread bytes are (*buf)[r:w]

	// The RawConn.Read callback and its arguments and results, kept here
	// so that a read allocates nothing.
	rawFn  func(fd uintptr) bool
	rawDst []byte // nil: read into a pooled buffer, set in rawBuf
	rawBuf *[]byte
	rawN   int
	rawErr error

	// pending is the error Wait's read met, returned by the next read.
	pending error
	// waitRead: the bytes read last from the connection were read by Wait.
	waitRead bool
}

// ObservedConn is a connection wrapper that only watches the reads made on
// the connection it wraps, such as a byte counter. h1 reads a plain TCP
// connection under it through the file descriptor, so that a stream
// waiting for data holds no buffer, and reports each read's byte count
// (n > 0) to ObserveRead instead of calling the wrapper's Read; both
// see the same reads.
type ObservedConn interface {
	net.Conn
	// NetConn returns the wrapped connection.
	NetConn() net.Conn
	// ObserveRead is told of every read of n > 0 bytes from the wrapped
	// connection, as its Read would have seen them.
	ObserveRead(n int)
}

// newLazyReader returns a reader of nc using pooled buffers of size bytes.
func newLazyReader(nc net.Conn, size int) *lazyReader {
	l := &lazyReader{nc: nc, size: size}
	if oc, ok := nc.(ObservedConn); ok {
		if l.raw = rawConn(oc.NetConn()); l.raw != nil {
			l.obs = oc
		}
	} else {
		l.raw = rawConn(nc)
	}
	if l.raw != nil {
		l.rawFn = l.rawRead
	}
	return l
}

// buffered reports how many read bytes wait to be consumed.
func (l *lazyReader) buffered() int { return l.w - l.r }

// Read reads up to len(p) bytes: buffered ones first, else from the
// connection, straight into p when p is at least a buffer's size.
func (l *lazyReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if l.buf == nil {
		if len(p) >= l.size {
			return l.read(p)
		}
		if err := l.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, (*l.buf)[l.r:l.w])
	l.r += n
	if l.r == l.w {
		l.release()
	}
	return n, nil
}

// fill reads from the connection into a pooled buffer; it returns an
// error only with no bytes read (the buffer then is not held).
func (l *lazyReader) fill() error {
	if err := l.pending; err != nil {
		l.pending = nil
		return err
	}
	l.waitRead = false
	if l.raw != nil {
		l.rawDst = nil
		n, buf, err := l.rawReadCall()
		if n > 0 {
			l.buf, l.r, l.w = buf, 0, n
			return nil
		}
		return err
	}
	buf := getBuf(l.size)
	n, err := l.nc.Read(*buf)
	if n > 0 {
		l.buf, l.r, l.w = buf, 0, n
		return nil // a Read error comes back on the next Read
	}
	putBuf(buf)
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// read reads from the connection straight into p.
func (l *lazyReader) read(p []byte) (int, error) {
	if err := l.pending; err != nil {
		l.pending = nil
		return 0, err
	}
	l.waitRead = false
	if l.raw == nil {
		return l.nc.Read(p)
	}
	l.rawDst = p
	n, _, err := l.rawReadCall()
	l.rawDst = nil
	return n, err
}

// rawReadCall runs one RawConn.Read: it returns the bytes read, the pooled
// buffer they are in (when rawDst is nil) and the error.
func (l *lazyReader) rawReadCall() (int, *[]byte, error) {
	l.rawN, l.rawBuf, l.rawErr = 0, nil, nil
	err := l.raw.Read(l.rawFn)
	n, buf := l.rawN, l.rawBuf
	l.rawBuf = nil
	if err == nil {
		err = l.rawErr
	}
	if n > 0 {
		if l.obs != nil {
			l.obs.ObserveRead(n)
		}
		return n, buf, nil
	}
	if buf != nil {
		putBuf(buf)
	}
	if err == nil {
		err = io.EOF // a read of 0 bytes without error: the peer closed
	}
	return 0, nil, err
}

// rawRead is the RawConn.Read callback: one read system call on fd; false
// (wait for data, then call again) when there is nothing to read yet. The
// pooled buffer is taken only for the call.
func (l *lazyReader) rawRead(fd uintptr) bool {
	dst := l.rawDst
	var buf *[]byte
	if dst == nil {
		buf = getBuf(l.size)
		dst = *buf
	}
	n, err := readFD(fd, dst)
	if err == syscall.EAGAIN {
		if buf != nil {
			putBuf(buf)
		}
		return false
	}
	if n < 0 {
		n = 0
	}
	l.rawN, l.rawBuf = n, buf
	if err != nil {
		l.rawErr = &net.OpError{Op: "read", Net: "tcp", Source: l.nc.LocalAddr(), Addr: l.nc.RemoteAddr(), Err: os.NewSyscallError("read", err)}
	}
	return true
}

// release returns the buffer to its pool once its bytes are consumed.
func (l *lazyReader) release() {
	if l.buf != nil {
		putBuf(l.buf)
		l.buf, l.r, l.w = nil, 0, 0
	}
}

var bufs sync.Map // size → *sync.Pool of *[]byte

// getBuf returns a read buffer of size bytes.
func getBuf(size int) *[]byte {
	if b, ok := poolOf(&bufs, size).Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, size)
	return &b
}

// putBuf returns b to its pool; the caller no longer uses it.
func putBuf(b *[]byte) {
	poolOf(&bufs, len(*b)).Put(b)
}
