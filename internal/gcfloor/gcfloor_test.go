package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestGCFloor: with a small live heap, GOGC is raised so that the heap
// goal reaches the floor; with a live heap over the floor it stays at the
// default; stopping restores the previous setting, and nested runs share
// one floor.
func TestFloor(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set: the floor is off")
	}
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	gogc := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }

	stop := Start(1 << 30)
	stop2 := Start(1 << 30)
	runtime.GC()
	runtime.GC() // the finalizer of the first cycle re-arms for the second
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	// live + (live+stacks+globals)*p/100 ≈ 1 GiB with a live heap of a
	// few MB: p is in the thousands.
	if p := gogc(); p < 1000 {
		t.Errorf("GOGC %d with %d MB live, want the floor to raise it", p, ms.HeapAlloc>>20)
	}
	stop()
	if p := gogc(); p < 1000 {
		t.Errorf("GOGC %d after one of two runs stopped, want still raised", p)
	}
	stop2()
	stop2() // idempotent
	runtime.GC()
	if p := gogc(); p != 100 {
		t.Errorf("GOGC %d after stop, want 100 restored", p)
	}

	stop = Start(1) // a floor below the live heap
	runtime.GC()
	runtime.GC()
	if p := gogc(); p < minPercent || p > 100 {
		t.Errorf("GOGC %d with a floor under the live heap, want %d-100 (garbage up to the live heap)", p, minPercent)
	}
	stop()
}

// TestHeadroomPercent checks the GOGC chosen for each regime against the
// heap goal it must give: live + (live+roots)*GOGC/100.
func TestHeadroomPercent(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		name                       string
		floor, live, roots, stacks uint64
		want                       int
	}{
		// Garbage 200-10-2 = 188 MB over a base of 10+2 MB: 1566%; the
		// goal, 198 MB, plus 2 MB of stacks is the floor.
		{"small heap: goal plus stacks at the floor", 200 * mb, 10 * mb, 2 * mb, 2 * mb, 1566},
		// 10,000 streams: 40 MB live, 8 MB of scanned stacks, 20 MB of
		// stacks, no floor: the cap, 16 MB, over a base of 48 MB: 33%.
		{"many streams: garbage up to the cap", 0, 40 * mb, 8 * mb, 20 * mb, 33},
		// 90 MB live, 36 MB of scanned stacks, 82 MB of stacks: the floor
		// leaves 200-90-82 = 28 MB, more than the cap of 16 MB, but 28 MB
		// over a base of 126 MB is 22%: the minimum.
		{"many stacks under a floor: the minimum", 200 * mb, 90 * mb, 36 * mb, 82 * mb, minPercent},
		// At the knee the cap is the live heap: 16 MB over 16 MB.
		{"no roots, at the knee: GOGC=100", 0, 16 * mb, 0, 0, 100},
		// 32 MB live: 16 MB of garbage over 32 MB: 50%.
		{"no roots, twice the knee", 0, 32 * mb, 0, 0, 50},
		// 300 MB live: 16 MB over 300 MB is 5%: GOGC=25.
		{"no roots, large heap: the minimum", 200 * mb, 300 * mb, 0, 0, minPercent},
		{"stacks dwarf the heap: the minimum", 200 * mb, 10 * mb, 200 * mb, 400 * mb, minPercent},
		{"tiny heap under a huge floor: the maximum", 1 << 40, 1 * mb, 0, 0, maxPercent},
		// 14 MB live and 28 MB of roots, no floor: 14 MB over 42 MB.
		{"closed loop, small heap: garbage up to the live heap", 0, 14 * mb, 28 * mb, 40 * mb, 33},
		// 20 MB live and 20 MB of roots: 16 MB over 40 MB.
		{"closed loop, heap past the knee", 0, 20 * mb, 20 * mb, 20 * mb, 40},
		{"nothing known", 200 * mb, 0, 0, 0, 100},
	} {
		if got := headroomPercent(tc.floor, tc.live, tc.roots, tc.stacks); got != tc.want {
			t.Errorf("%s: GOGC %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestContainerLimit: a container's memory limit caps the floor at a
// quarter of it; "max" and v1's huge value mean no limit.
func TestContainerLimit(t *testing.T) {
	for _, tc := range []struct {
		file  string
		limit uint64
		floor uint64
	}{
		{"max\n", 0, 200 << 20},
		{"9223372036854771712\n", 0, 200 << 20},
		{"268435456\n", 256 << 20, 64 << 20},
		{"4294967296", 4 << 30, 200 << 20},
		{"garbage", 0, 200 << 20},
	} {
		limit := parseLimit(tc.file)
		if limit != tc.limit || capped(200<<20, limit) != tc.floor {
			t.Errorf("%q: limit %d, floor %d; want %d, %d", tc.file, limit, capped(200<<20, limit), tc.limit, tc.floor)
		}
	}
}
