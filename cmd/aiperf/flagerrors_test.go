package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/runner"
	"github.com/aiperf-go/aiperf/sink/opener"
)

// TestInputAndStoreFlagsExitTwo checks the flags of issue 13 end to end:
// each is refused with exit 2, one message naming the flag and the fix,
// and no request sent.
func TestInputAndStoreFlagsExitTwo(t *testing.T) {
	srv, hits := countingServer(t)
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	blank := filepath.Join(dir, "blank.jsonl")
	for p, data := range map[string]string{empty: "", blank: "\n\n"} {
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	base := []string{"profile", "-m", "x", "--url", srv.URL, "--ui-type", "none", "--artifact-dir", t.TempDir()}
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"request count 0", []string{"--request-count", "0"}, []string{"--request-count must be >= 1 (got 0)"}},
		{"num-requests 0", []string{"--num-requests=0"}, []string{"--request-count must be >= 1 (got 0)"}},
		{"ftp store", []string{"--artifact-dir", "ftp://x"}, []string{`--artifact-dir "ftp://x" has an unknown store scheme "ftp"`, "s3://", "gs://", "azblob://", "file://", "mem://"}},
		{"s4 store", []string{"--artifact-dir=s4://bucket/p"}, []string{`unknown store scheme "s4"`}},
		{"missing input", []string{"--input-file", filepath.Join(dir, "nope.jsonl")}, []string{"--input-file " + filepath.Join(dir, "nope.jsonl") + " does not exist"}},
		{"empty input", []string{"--input-file", empty}, []string{"--input-file " + empty + " is empty (0 bytes)"}},
		{"blank input", []string{"--input-file", blank, "--custom-dataset-type", "single_turn"}, []string{"--input-file " + blank + " holds only blank lines"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append(slices.Clone(base), tt.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "cannot tell its type") {
				t.Errorf("stderr guesses at the type:\n%s", stderr)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// TestRequestCountZeroFromEnv checks that 0 from AIPERF_REQUEST_COUNT is
// refused as the flag's would be.
func TestRequestCountZeroFromEnv(t *testing.T) {
	t.Setenv("AIPERF_REQUEST_COUNT", "0")
	if _, err := parseProfile([]string{"-m", "x"}); err == nil || !strings.Contains(err.Error(), "--request-count must be >= 1") {
		t.Fatalf("error %v", err)
	}
}

// TestStoreSchemesMatchOpener keeps the schemes Validate accepts equal to
// those the command can open.
func TestStoreSchemesMatchOpener(t *testing.T) {
	got, want := runner.StoreSchemes(), opener.Mux().BucketSchemes()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("runner accepts %v, opener opens %v", got, want)
	}
}
