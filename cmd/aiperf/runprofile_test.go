package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

func TestProfileMultiRunAndSweep(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	failing := mocktest.Start(t, mockserver.Config{ErrorRate: 1})
	common := []string{"profile", "-m", "mock-model", "--streaming", "--ui-type", "none", "--request-count", "4", "--isl", "16", "--osl", "8"}
	tests := []struct {
		name  string
		url   string
		args  []string
		code  int
		files []string
		out   string
	}{
		{"multi-run", srv.URL(), []string{"--num-profile-runs", "2", "--profile-run-cooldown-seconds", "0.05"}, 0,
			[]string{"profile_runs/run_0001/profile_export_aiperf.json", "profile_runs/run_0002/profile_export_aiperf.csv",
				"aggregate/profile_export_aiperf_aggregate.json", "aggregate/profile_export_aiperf_aggregate.csv"},
			"AGGREGATE STATISTICS SUMMARY"},
		{"concurrency sweep", srv.URL(), []string{"--concurrency", "1,2"}, 0,
			[]string{"concurrency_1/profile_export_aiperf.json", "concurrency_2/profile_export_aiperf.json", "sweep_summary.csv"},
			"Sweep Summary"},
		{"every run failed", failing.URL(), []string{"--num-profile-runs", "2"}, exitFailed, nil, "every profile run failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append(append(append([]string{}, common...), "--url", tt.url, "--artifact-dir", dir), tt.args...)
			code, stdout, stderr := runCLI(t, args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d: %s", code, tt.code, stderr)
			}
			for _, f := range tt.files {
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
					t.Error(err)
				}
			}
			if !strings.Contains(stdout+stderr, tt.out) {
				t.Errorf("output lacks %q:\n%s\n%s", tt.out, stdout, stderr)
			}
		})
	}
}

func TestProfileMultiRunDashboardRejected(t *testing.T) {
	srv, hits := countingServer(t)
	for _, extra := range [][]string{{"--num-profile-runs", "2"}, {"--concurrency", "1,2"}} {
		args := append([]string{"profile", "-m", "x", "--url", srv.URL, "--ui-type", "dashboard", "--artifact-dir", t.TempDir()}, extra...)
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, "Dashboard UI is not supported") {
			t.Errorf("%v: exit %d: %s", extra, code, stderr)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("%d requests sent", hits.Load())
	}
}
