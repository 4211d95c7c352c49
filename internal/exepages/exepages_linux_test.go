package exepages

import (
	"os"
	"runtime/debug"
	"strings"
	"testing"
)

// A trimmed /proc/self/smaps of a cgo-linked aiperf: its header, code,
// read-only data, RELRO (read-only, but written by the dynamic loader)
// and data mappings, then a heap mapping.
const smapsFixture = `00400000-00411000 r--p 00000000 fe:00 10666196                           /opt/aiperf/bin/aiperf
Size:                 68 kB
Rss:                  68 kB
Anonymous:             0 kB
00411000-01d05000 r-xp 00011000 fe:00 10666196                           /opt/aiperf/bin/aiperf
Size:              25552 kB
Anonymous:             0 kB
FilePmdMapped:     20480 kB
01d05000-03c17000 r--p 01905000 fe:00 10666196                           /opt/aiperf/bin/aiperf
Anonymous:             0 kB
03c17000-03c18000 r--p 03816000 fe:00 10666196                           /opt/aiperf/bin/aiperf
Anonymous:             4 kB
03c18000-03e2d000 rw-p 03817000 fe:00 10666196                           /opt/aiperf/bin/aiperf
Anonymous:           300 kB
03e2d000-03e40000 r--p 00000000 fe:00 10666197                           /opt/aiperf/bin/aiperf with space
Anonymous:             0 kB
04000000-04400000 rw-p 00000000 00:00 0 
Anonymous:          4096 kB
7f0000000000-7f0000001000 r--p 00000000 fe:00 10666196                           /opt/aiperf/bin/aiperf
Rss:                   4 kB
`

func TestDroppableSkipsWrittenAndWritableMappings(t *testing.T) {
	maps := parseSmaps([]byte(smapsFixture))
	if len(maps) != 8 {
		t.Fatalf("parsed %d mappings, want 8: %+v", len(maps), maps)
	}
	if maps[5].path != "/opt/aiperf/bin/aiperf with space" || maps[6].path != "" {
		t.Errorf("paths: %q, %q", maps[5].path, maps[6].path)
	}
	got := droppable(maps, "/opt/aiperf/bin/aiperf")
	// The header, code and read-only data; not RELRO (a written page),
	// not .data (writable), not the other file, not the heap, and not the
	// last mapping, whose Anonymous field is missing.
	want := []uintptr{0x400000, 0x411000, 0x1d05000}
	if len(got) != len(want) {
		t.Fatalf("droppable = %+v, want starts %x", got, want)
	}
	for i, m := range got {
		if m.start != want[i] {
			t.Errorf("droppable[%d] starts at %x, want %x", i, m.start, want[i])
		}
	}
}

func TestParseHeaderRejectsFieldLines(t *testing.T) {
	for _, line := range []string{"Rss:                  68 kB", "VmFlags: rd ex mr mw me", "zz-yy r--p 0 fe:00 1 /x", "2000-1000 r--p 0 fe:00 1 /x"} {
		if m, ok := parseHeader(line); ok {
			t.Errorf("parseHeader(%q) = %+v, want no mapping", line, m)
		}
	}
}

// TestMapSmallKeepsTheProcessWorking drops this test binary's read-only
// mappings and then runs code and reads data from all over it (a stack
// trace walks the function tables); afterwards none of them is mapped
// with a huge page.
func TestMapSmallKeepsTheProcessWorking(t *testing.T) {
	n, err := MapSmall()
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("MapSmall marked no mapping of the test binary")
	}
	if st := string(debug.Stack()); !strings.Contains(st, "TestMapSmallKeepsTheProcessWorking") {
		t.Errorf("stack trace after MapSmall lacks this test:\n%s", st)
	}
	exe, _ := os.Readlink("/proc/self/exe")
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := parseHeader(line); ok {
			in = m.path == exe && !strings.Contains(m.perms, "w")
			continue
		}
		if v, ok := strings.CutPrefix(line, "FilePmdMapped:"); ok && in && strings.TrimSpace(v) != "0 kB" {
			t.Errorf("a read-only mapping of the executable is still huge-page mapped: FilePmdMapped %s", strings.TrimSpace(v))
		}
	}
}
