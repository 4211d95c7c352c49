package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestVersionFlag checks `aiperf-report --version`: the line of
// `aiperf-report version`.
func TestVersionFlag(t *testing.T) {
	var flagOut, cmdOut bytes.Buffer
	if err := run(context.Background(), []string{"--version"}, strings.NewReader(""), &flagOut, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"version"}, strings.NewReader(""), &cmdOut, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if flagOut.String() != cmdOut.String() || !strings.HasPrefix(flagOut.String(), "aiperf-report "+Version+" (commit ") {
		t.Errorf("--version %q, version %q", flagOut.String(), cmdOut.String())
	}
}
