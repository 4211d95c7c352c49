package gcfloor

import (
	"os"
	"strconv"
	"strings"
)

// cgroupLimitFiles are where Linux states the container's memory limit:
// cgroup v2, then v1.
var cgroupLimitFiles = []string{
	"/sys/fs/cgroup/memory.max",
	"/sys/fs/cgroup/memory/memory.limit_in_bytes",
}

// memoryLimit returns the memory limit of the process's container, or 0
// when there is none (or it cannot be read, as on other systems).
func memoryLimit() uint64 {
	for _, f := range cgroupLimitFiles {
		if b, err := os.ReadFile(f); err == nil {
			return parseLimit(string(b))
		}
	}
	return 0
}

// parseLimit reads a cgroup memory limit file: a byte count, or "max" (v2)
// or a value near 2^63 (v1) for none, which give 0.
func parseLimit(s string) uint64 {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil || n >= 1<<62 {
		return 0
	}
	return n
}

// capped returns floor, lowered to a quarter of the container's memory
// limit when there is one: the floor must not push a small container's
// process into its limit.
func capped(floor, limit uint64) uint64 {
	if limit > 0 {
		return min(floor, limit/4)
	}
	return floor
}
