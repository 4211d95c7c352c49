package command

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// SignalError is the cause of a context cancelled by a signal, and the
// error of a command that signal cut short: exit status 128 + the signal's
// number (130 for SIGINT, 143 for SIGTERM), as a shell reports a process
// the signal killed, so orchestrators read it the same way.
type SignalError struct {
	Signal os.Signal
	// Err is what the command returned after the signal; nil as a cause.
	Err error
}

func (e *SignalError) Error() string {
	if e.Err == nil {
		return "received " + signalName(e.Signal)
	}
	return fmt.Sprintf("%v (after %s)", e.Err, signalName(e.Signal))
}

func (e *SignalError) Unwrap() error { return e.Err }

// ExitStatus is 128 + the signal's number, or 1 for a signal without one.
func (e *SignalError) ExitStatus() int {
	if s, ok := e.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// Signalled returns err marked as cut short by the signal that cancelled
// ctx (see NotifyContext): a *SignalError wrapping err. It returns err
// unchanged when err is nil (the command finished its work despite the
// signal) or no signal cancelled ctx.
func Signalled(ctx context.Context, err error) error {
	se, ok := context.Cause(ctx).(*SignalError)
	if err == nil || !ok {
		return err
	}
	return &SignalError{Signal: se.Signal, Err: err}
}

// NotifyContext returns a context that the first SIGINT or SIGTERM cancels
// with a *SignalError as its cause: the command stops its work, keeps what
// it has and finishes within its own shutdown bound (a line on stderr, name
// its prefix, says so). A second signal prints a line to stderr and calls exit with that signal's status at once, without
// any further flush: whatever is already on disk stays there. stop
// unregisters the signals and waits for the watcher goroutine to end.
func NotifyContext(parent context.Context, name string, stderr io.Writer, exit func(int)) (ctx context.Context, stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, stopWatch := watchSignals(parent, sigs, name, stderr, exit)
	return ctx, func() {
		signal.Stop(sigs)
		stopWatch()
	}
}

// watchSignals is NotifyContext's actor, fed by sigs; its goroutine ends
// when stop is called.
func watchSignals(parent context.Context, sigs <-chan os.Signal, name string, stderr io.Writer, exit func(int)) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		first := true
		for {
			select {
			case <-quit:
				return
			case s := <-sigs:
				se := &SignalError{Signal: s}
				if first {
					first = false
					fmt.Fprintf(stderr, "%s: %s: stopping (%s again exits at once)\n", name, se, signalName(s))
					cancel(se)
					continue
				}
				fmt.Fprintf(stderr, "%s: %s again: exiting at once; records not yet stored stay in the local spool\n", name, signalName(s))
				exit(se.ExitStatus())
				return
			}
		}
	}()
	return ctx, func() {
		close(quit)
		<-done
		cancel(nil)
	}
}
