//go:build unix

package runner

import (
	"runtime"
	"syscall"
	"time"
)

// processUsage reads the process's CPU time and peak resident memory.
func processUsage() usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return usage{}
	}
	rss := float64(ru.Maxrss) / 1024 // KiB on Linux and the BSDs
	if runtime.GOOS == "darwin" {
		rss /= 1024 // bytes on macOS
	}
	return usage{
		user:     time.Duration(ru.Utime.Nano()),
		sys:      time.Duration(ru.Stime.Nano()),
		maxRSSMB: rss,
	}
}
