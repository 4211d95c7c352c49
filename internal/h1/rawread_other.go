//go:build !unix

package h1

import (
	"errors"
	"net"
	"syscall"
)

// rawConn returns nil: outside Unix every connection is read through its
// Read method.
func rawConn(net.Conn) syscall.RawConn { return nil }

func readFD(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }

func peekFD(uintptr) (data, closed bool) { return false, false }
