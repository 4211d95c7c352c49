package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
)

func TestExitCodeTable(t *testing.T) {
	failed := errors.New("every request failed")
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, 0},
		{"failure", failed, 1},
		{"usage", Usage(failed), 2},
		{"wrapped usage", fmt.Errorf("profile: %w", Usage(failed)), 2},
		{"SIGINT", &SignalError{Signal: os.Interrupt, Err: failed}, 130},
		{"SIGTERM", &SignalError{Signal: syscall.SIGTERM, Err: failed}, 143},
		{"wrapped SIGTERM", fmt.Errorf("run: %w", &SignalError{Signal: syscall.SIGTERM, Err: failed}), 143},
		// A usage error is reported before any work, whatever came after.
		{"usage then signal", &SignalError{Signal: syscall.SIGTERM, Err: Usage(failed)}, 2},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		if got := ExitCode("aiperf", tt.err, &stderr); got != tt.want {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.want)
		}
		if (tt.err == nil) != (stderr.Len() == 0) {
			t.Errorf("%s: stderr %q", tt.name, stderr.String())
		}
	}
}

func TestSignalled(t *testing.T) {
	failed := errors.New("run interrupted")
	if err := Signalled(context.Background(), failed); err != failed {
		t.Errorf("no signal: %v", err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&SignalError{Signal: syscall.SIGTERM})
	if err := Signalled(ctx, nil); err != nil {
		t.Errorf("finished despite the signal: %v, want nil (exit 0)", err)
	}
	err := Signalled(ctx, failed)
	if !errors.Is(err, failed) || ExitCode("aiperf", err, &bytes.Buffer{}) != 143 || !strings.Contains(err.Error(), "SIGTERM") {
		t.Errorf("cut short: %v", err)
	}
}

// TestSignalWatcher: the first signal cancels the context with the signal
// as its cause and exits nothing; the second exits at once with 128+N.
func TestSignalWatcher(t *testing.T) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		sigs := make(chan os.Signal)
		var mu sync.Mutex
		var stderr bytes.Buffer
		exited := make(chan int, 1)
		ctx, stop := watchSignals(context.Background(), sigs, "aiperf", &lockedWriter{mu: &mu, w: &stderr}, func(code int) { exited <- code })
		sigs <- sig
		<-ctx.Done()
		var se *SignalError
		if !errors.As(context.Cause(ctx), &se) || se.Signal != sig {
			t.Fatalf("%v: cause %v", sig, context.Cause(ctx))
		}
		select {
		case code := <-exited:
			t.Fatalf("%v: the first signal exited %d", sig, code)
		default:
		}
		sigs <- sig
		want := map[os.Signal]int{os.Interrupt: 130, syscall.SIGTERM: 143}[sig]
		if code := <-exited; code != want {
			t.Errorf("%v: second signal exited %d, want %d", sig, code, want)
		}
		stop() // the watcher has ended; stop must not block
		mu.Lock()
		out := stderr.String()
		mu.Unlock()
		if strings.Count(out, "aiperf: ") != 2 || !strings.Contains(out, "exiting at once") {
			t.Errorf("%v: stderr %q", sig, out)
		}
	}
}

// TestSignalWatcherStop: stop ends the watcher when no signal came, and
// cancels the context.
func TestSignalWatcherStop(t *testing.T) {
	ctx, stop := watchSignals(context.Background(), make(chan os.Signal), "aiperf", &bytes.Buffer{}, func(int) { t.Error("exited") })
	stop()
	if ctx.Err() == nil || context.Cause(ctx) == nil {
		t.Error("stop did not cancel the context")
	}
	if _, ok := context.Cause(ctx).(*SignalError); ok {
		t.Error("a stop without a signal reads as a signal")
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
