package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/peterbourgon/ff/v4"
)

func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
		out  string
	}{
		{nil, 0, ""},
		{errors.New("boom"), 1, "tool: boom\n"},
		{fmt.Errorf("wrapped: %w", Usage(errors.New("--x is bad"))), 2, "tool: wrapped: --x is bad\n"},
	} {
		var b bytes.Buffer
		if code := ExitCode("tool", tc.err, &b); code != tc.code || b.String() != tc.out {
			t.Errorf("ExitCode(%v) = %d %q, want %d %q", tc.err, code, b.String(), tc.code, tc.out)
		}
	}
}

func TestRun(t *testing.T) {
	ran := false
	sub := &ff.Command{Name: "go", Flags: ff.NewFlagSet("go"), Exec: func(context.Context, []string) error { ran = true; return nil }}
	newRoot := func() *ff.Command {
		return &ff.Command{Name: "tool", Flags: ff.NewFlagSet("tool"), Subcommands: []*ff.Command{sub}}
	}
	var out, errb bytes.Buffer
	if err := Run(context.Background(), newRoot(), []string{"go"}, &out, &errb); err != nil || !ran {
		t.Fatalf("err %v ran %v", err, ran)
	}
	if err := Run(context.Background(), newRoot(), []string{"--help"}, &out, &errb); err != nil || !strings.Contains(out.String(), "COMMAND") {
		t.Fatalf("help: %v %q", err, out.String())
	}
	var ue *UsageError
	if err := Run(context.Background(), newRoot(), nil, &out, &errb); !errors.As(err, &ue) {
		t.Fatalf("no subcommand: %v", err)
	}
	if err := Run(context.Background(), newRoot(), []string{"--nope"}, &out, &errb); !errors.As(err, &ue) {
		t.Fatalf("bad flag: %v", err)
	}
	if err := Run(context.Background(), newRoot(), []string{"og"}, &out, &errb); !errors.As(err, &ue) || !strings.Contains(err.Error(), `unknown command "og"`) {
		t.Fatalf("unknown command: %v", err)
	}
}

type statusError struct{ code int }

func (e statusError) Error() string   { return "gate failed" }
func (e statusError) ExitStatus() int { return e.code }

// TestExitCodeOwnStatus: an error with an ExitStatus method picks its
// status; a usage error around it still wins.
func TestExitCodeOwnStatus(t *testing.T) {
	var b bytes.Buffer
	if code := ExitCode("tool", fmt.Errorf("run: %w", statusError{3}), &b); code != 3 || b.String() != "tool: run: gate failed\n" {
		t.Fatalf("code %d %q", code, b.String())
	}
	if code := ExitCode("tool", Usage(statusError{3}), &b); code != 2 {
		t.Fatalf("usage: code %d", code)
	}
}
