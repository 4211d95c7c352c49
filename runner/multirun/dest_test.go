package multirun

import (
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/runner"
	"github.com/aiperf-go/aiperf/sink"
)

func TestJoin(t *testing.T) {
	const elem = "profile_runs/run_0001"
	tests := []struct{ dest, want string }{
		{"artifacts/x", filepath.Join("artifacts", "x", "profile_runs", "run_0001")},
		{"/data/bench/", filepath.Join("/data/bench", "profile_runs", "run_0001")},
		// A URL path is the key prefix sink uses.
		{"s3://bench", "s3://bench/profile_runs/run_0001"},
		{"s3://bench/nightly?region=us-east-1", "s3://bench/nightly/profile_runs/run_0001?region=us-east-1"},
		{"gs://bench/a/b/", "gs://bench/a/b/profile_runs/run_0001"},
		// prefix= wins: the sub-path is appended to it, with one slash.
		{"s3://bench?prefix=nightly/", "s3://bench?prefix=nightly%2Fprofile_runs%2Frun_0001%2F"},
		{"s3://bench?prefix=nightly&region=x", "s3://bench?prefix=nightly%2Fprofile_runs%2Frun_0001%2F&region=x"},
		{"s3://bench?prefix=", "s3://bench/profile_runs/run_0001?prefix="},
		// file:// paths are directories.
		{"file:///tmp/out", "file:///tmp/out/profile_runs/run_0001"},
		{"file:///tmp/out?create_dir=true", "file:///tmp/out/profile_runs/run_0001?create_dir=true"},
		{"mem://", "mem:///profile_runs/run_0001"},
	}
	for _, tt := range tests {
		got, err := Join(tt.dest, elem)
		if err != nil || got != tt.want {
			t.Errorf("Join(%q) = %q, %v; want %q", tt.dest, got, err, tt.want)
		}
	}
	if got, _ := Join("s3://b/x", ""); got != "s3://b/x" {
		t.Errorf("empty elem: %q", got)
	}
}

// FuzzJoin: any destination either fails to parse or yields one that still
// names the same kind of destination and contains the sub-path.
func FuzzJoin(f *testing.F) {
	for _, s := range []string{"artifacts", "s3://b/p?prefix=x", "file:///tmp", "mem://", "gs://b?prefix=a/b/", "s3://%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dest string) {
		got, err := Join(dest, "profile_runs/run_0002")
		if err != nil {
			return
		}
		if sink.IsURL(dest) != sink.IsURL(got) {
			t.Fatalf("Join(%q) = %q changed kind", dest, got)
		}
		if sink.IsURL(got) {
			u, err := url.Parse(got)
			if err != nil {
				t.Fatalf("Join(%q) = %q does not parse: %v", dest, got, err)
			}
			if !strings.Contains(u.Path+u.Query().Get("prefix"), "profile_runs/run_0002") {
				t.Fatalf("Join(%q) = %q lost the sub-path", dest, got)
			}
		}
	})
}

func TestSweepDest(t *testing.T) {
	cfg := runner.Defaults()
	cfg.Models = []string{"org/model"}
	cfg.ConcurrencyList, cfg.Concurrency = []int{1, 2}, 1
	if got, want := SweepDest(&cfg), filepath.Join("artifacts", "org_model-openai-chat-concurrency_sweep"); got != want {
		t.Errorf("concurrency sweep: %q, want %q", got, want)
	}
	cfg.ConcurrencyList, cfg.Concurrency = nil, 4
	cfg.RequestRateList, cfg.RequestRate = []float64{10, 20}, 10
	if got, want := SweepDest(&cfg), filepath.Join("artifacts", "org_model-openai-chat-request_rate_sweep"); got != want {
		t.Errorf("rate sweep: %q, want %q", got, want)
	}
	cfg.ArtifactDir, cfg.ArtifactDirSet = "out", true
	if got := SweepDest(&cfg); got != "out" {
		t.Errorf("--artifact-dir: %q", got)
	}
}

func TestPointsAndNames(t *testing.T) {
	cfg := runner.Defaults()
	cfg.RequestRateList = []float64{10, 2.5}
	ps := Points(&cfg)
	if len(ps) != 2 || ps[0].Dir() != "request_rate_10.0" || ps[1].Dir() != "request_rate_2.5" {
		t.Fatalf("points %+v", ps)
	}
	cfg.RequestRateList = []float64{10} // one value: not a sweep
	if Points(&cfg) != nil || Needed(&cfg) {
		t.Fatal("a single value is not a sweep")
	}
	cfg.NumProfileRuns = 2
	if !Needed(&cfg) {
		t.Fatal("two profile runs need multirun")
	}
}

func TestCheck(t *testing.T) {
	cfg := runner.Defaults()
	cfg.Models = []string{"m"}
	cfg.NumProfileRuns, cfg.UIType = 3, "dashboard"
	if err := Check(&cfg); err == nil || !strings.HasPrefix(err.Error(), "Dashboard UI is not supported with multi-run mode (--num-profile-runs > 1)") {
		t.Errorf("dashboard multi-run: %v", err)
	}
	cfg.NumProfileRuns = 1
	cfg.ConcurrencyList = []int{1, 2}
	if err := Check(&cfg); err == nil || !strings.Contains(err.Error(), "parameter sweeps") {
		t.Errorf("dashboard sweep: %v", err)
	}
	cfg.UIType = "simple"
	cfg.RequestRateList = []float64{1, 2}
	if err := Check(&cfg); err == nil || !strings.Contains(err.Error(), "--concurrency and --request-rate") {
		t.Errorf("both lists: %v", err)
	}
	cfg.RequestRateList = []float64{5}
	if err := Check(&cfg); err != nil {
		t.Errorf("a concurrency sweep with a rate: %v", err)
	}
}
