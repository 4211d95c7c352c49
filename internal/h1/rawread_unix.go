//go:build unix

package h1

import (
	"net"
	"syscall"
)

// rawConn returns nc's syscall.RawConn when nc is one of the net package's
// own connections (a type wrapping one would have its Read bypassed), nil
// otherwise.
func rawConn(nc net.Conn) syscall.RawConn {
	switch nc.(type) {
	case *net.TCPConn, *net.UnixConn:
	default:
		return nil
	}
	raw, err := nc.(syscall.Conn).SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// readFD is one read system call on the non-blocking fd, retried on EINTR;
// syscall.EAGAIN means no data yet.
func readFD(fd uintptr, p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(fd), p)
		if err != syscall.EINTR {
			return n, err
		}
	}
}

// peekFD looks at the non-blocking socket fd without waiting and without
// consuming: data reports bytes waiting to be read, closed that the peer
// closed or reset the connection.
func peekFD(fd uintptr) (data, closed bool) {
	var b [1]byte
	for {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK:
			return false, false
		case err != nil:
			return false, true
		}
		return n > 0, n == 0
	}
}
