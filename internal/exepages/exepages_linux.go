package exepages

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// mapSmall reads /proc/self/smaps and applies MADV_NOHUGEPAGE then
// MADV_DONTNEED to each mapping of the executable that is not writable
// and holds no page of its own. MADV_DONTNEED on a private file mapping
// only drops page table entries, and the next access maps the page
// cache's page again, but a page the process wrote (copy on write) would
// be lost: a writable mapping (.data, .bss) may hold such pages, and so
// may a read-only one, when the dynamic loader wrote relocations into it
// before write-protecting it (RELRO). Only mappings with no anonymous
// pages are dropped; nothing writes to a read-only mapping after that.
func mapSmall() (int64, error) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0, fmt.Errorf("executable: %w", err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, fmt.Errorf("mappings: %w", err)
	}
	var total int64
	for _, m := range droppable(parseSmaps(smaps), exe) {
		// Errors leave that mapping as it was: it still works, only its
		// resident size stays larger.
		if m.advise(unix.MADV_NOHUGEPAGE) == nil && m.advise(unix.MADV_DONTNEED) == nil {
			total += int64(m.end - m.start)
		}
	}
	return total, nil
}

// droppable returns the mappings of exe that are safe to drop: not
// writable, and with no anonymous (written) page, as far as smaps knows
// (a missing Anonymous field counts as unknown, so not safe).
func droppable(maps []mapping, exe string) []mapping {
	var out []mapping
	for _, m := range maps {
		if m.path == exe && !strings.Contains(m.perms, "w") && m.anonymous == 0 {
			out = append(out, m)
		}
	}
	return out
}

// mapping is one mapping of /proc/self/smaps.
type mapping struct {
	start, end uintptr
	perms      string
	path       string
	// anonymous is the mapping's "Anonymous:" size in kB (its written
	// copies of file pages); -1 when the field was missing.
	anonymous int64
}

// parseSmaps reads the mappings of an smaps file: a header line "start-end
// perms offset dev inode path" per mapping, then "Field: value kB" lines.
func parseSmaps(b []byte) []mapping {
	var out []mapping
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if m, ok := parseHeader(line); ok {
			out = append(out, m)
			continue
		}
		if v, ok := strings.CutPrefix(line, "Anonymous:"); ok && len(out) > 0 {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				n = -1
			}
			out[len(out)-1].anonymous = n
		}
	}
	return out
}

// parseHeader reads a mapping's header line; the fields of its other
// lines ("Rss:") fail it.
func parseHeader(line string) (mapping, bool) {
	f := strings.Fields(line)
	if len(f) < 5 {
		return mapping{}, false
	}
	lo, hi, ok := strings.Cut(f[0], "-")
	if !ok {
		return mapping{}, false
	}
	start, err1 := strconv.ParseUint(lo, 16, 64)
	end, err2 := strconv.ParseUint(hi, 16, 64)
	if err1 != nil || err2 != nil || end <= start {
		return mapping{}, false
	}
	m := mapping{start: uintptr(start), end: uintptr(end), perms: f[1], anonymous: -1}
	if len(f) >= 6 {
		m.path = strings.Join(f[5:], " ")
	}
	return m, true
}

// advise applies madvise(2) to the mapping: by address, as the runtime's
// own madvise calls do, since the range is not Go memory.
func (m mapping) advise(advice int) error {
	if _, _, e := unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, uintptr(advice)); e != 0 {
		return e
	}
	return nil
}
