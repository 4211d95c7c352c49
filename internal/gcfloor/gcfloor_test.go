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
		// 10,000 streams: 90 MB live, 36 MB of scanned stacks, 82 MB of
		// stacks. The floor leaves 28 MB, less than the garbage cap of
		// 32 + (90-32)/4 = 46.5 MB, over a base of 126 MB: 36%.
		{"many stacks: garbage up to the cap", 200 * mb, 90 * mb, 36 * mb, 82 * mb, 36},
		// At the knee the cap is the live heap: 32 MB over 32 MB.
		{"no roots, at the knee: GOGC=100", 0, 32 * mb, 0, 0, 100},
		// 300 MB live: 32 + 268/4 = 99 MB of garbage over 300 MB: 33%.
		{"no roots, large heap: a third", 200 * mb, 300 * mb, 0, 0, 33},
		// 99 MB over 303 MB: 32%.
		{"large heap, few roots", 200 * mb, 300 * mb, 3 * mb, 1 * mb, 32},
		{"stacks dwarf the heap: the minimum", 200 * mb, 10 * mb, 200 * mb, 400 * mb, minPercent},
		{"tiny heap under a huge floor: the maximum", 1 << 40, 1 * mb, 0, 0, maxPercent},
		// 20 MB live and 40 MB of roots, no floor: 20 MB over 60 MB.
		{"closed loop, small heap: garbage up to the live heap", 0, 20 * mb, 40 * mb, 40 * mb, 33},
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
