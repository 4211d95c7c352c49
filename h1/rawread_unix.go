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
