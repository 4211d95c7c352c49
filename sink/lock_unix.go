//go:build unix

package sink

import (
	"errors"
	"os"
	"syscall"
)

// lockShared takes a shared lock on f, held until f is closed: the mark of
// a live process using the spool.
func lockShared(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_SH) }

// tryLockExclusive takes an exclusive lock on f without waiting. It returns
// false, nil when a live process holds the spool.
func tryLockExclusive(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
