package h1

import (
	"bytes"
	"context"
	"io"
	"net"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// TestParkStack: a fresh goroutine waiting in Wait keeps the stack the
// runtime started it with (2 KiB: the test keeps the runtime's adaptive
// starting size, /gc/stack/starting-size, at its floor): 200 of them grow
// the heap's stacks by at most that plus 1 KiB each (measured: 1,966
// bytes). One whose Wait outgrew its stack measures 4 KiB or more each
// (the 4 KiB stack it grew into; its 2 KiB one goes to the next
// goroutine), which a bound of 4 KiB each would let through at
// times. Under the race detector frames and stack guards are larger than
// in a normal build, so the sizes tell nothing there.
func TestParkStack(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("stack sizes measured on linux only")
	}
	if raceBuild() {
		t.Skip("stack sizes differ under the race detector")
	}
	// A collection now, with few goroutines alive, sets the starting size
	// from small stacks (2 KiB in practice); none runs until the end to
	// change it.
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const n = 200
	srv, conns := parkServer(t, parkFirst, n)
	tr := &Transport{}
	defer tr.CloseIdleConnections()
	bodies := make([]*body, n)
	servers := make([]net.Conn, n)
	for i := range n {
		bodies[i], servers[i] = parkStream(t, context.Background(), tr, srv.url(), conns)
		if !bodies[i].WouldBlock() {
			t.Fatalf("stream %d: WouldBlock after the first chunk: false", i)
		}
	}

	before, start := stackBytes()
	var wg sync.WaitGroup
	for _, b := range bodies {
		wg.Go(func() { b.Wait() })
	}
	all := make(chan struct{})
	go func() {
		wg.Wait()
		close(all)
	}()
	defer func() {
		for _, b := range bodies {
			b.Close() // wakes any Wait left
		}
		<-all
	}()
	if got := waitersParked(n); got != n {
		t.Fatalf("%d of %d goroutines parked in Wait after %v", got, n, parkLong)
	}
	during, start2 := stackBytes()
	limit := int64(max(start, start2, 2048)) + 1024
	if per := (int64(during) - int64(before)) / n; per > limit {
		t.Errorf("stacks grew %d -> %d bytes: %d per waiting goroutine, want <= %d (starting size %d, %d)",
			before, during, per, limit, start, start2)
	}

	for _, sc := range servers {
		serverWrite(t, sc, "0\r\n\r\n")
	}
	returned(t, all, "end sent to every stream")
	for i, b := range bodies {
		if n, err := b.Read(make([]byte, 8)); n != 0 || err != io.EOF {
			t.Errorf("stream %d at the end: %d bytes, %v; want 0, EOF", i, n, err)
		}
	}
}

// stackBytes returns the heap memory reserved for goroutine stacks and
// the size the runtime starts goroutines' stacks with.
func stackBytes() (reserved, start uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/stacks:bytes"}, {Name: "/gc/stack/starting-size:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// raceBuild reports whether the test binary was built with -race.
func raceBuild() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// waitersParked returns how many goroutines wait in the poller inside
// body.Wait, once that is want or after parkLong.
func waitersParked(want int) int {
	buf := make([]byte, 8<<20)
	got := 0
	for deadline := time.Now().Add(parkLong); ; time.Sleep(5 * time.Millisecond) {
		got = 0
		for g := range bytes.SplitSeq(buf[:runtime.Stack(buf, true)], []byte("\n\n")) {
			if bytes.Contains(g, []byte("[IO wait")) && bytes.Contains(g, []byte(".(*body).Wait(")) {
				got++
			}
		}
		if got == want || time.Now().After(deadline) {
			return got
		}
	}
}
