package main

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/command"
)

func TestExpandMultiValue(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"profile", "--server-metrics", "a:1", "b:2/metrics", "--streaming"},
			[]string{"profile", "--server-metrics=a:1", "--server-metrics=b:2/metrics", "--streaming"}},
		{[]string{"profile", "--gpu-telemetry", "--model", "m"}, []string{"profile", "--gpu-telemetry=,", "--model=m"}},
		{[]string{"profile", "--model", "m", "--gpu-telemetry"}, []string{"profile", "--model=m", "--gpu-telemetry=,"}},
		// GenAI-Perf's nargs: -m a b, -g a:1 b:2 (a short flag takes no =value).
		{[]string{"profile", "-m", "a", "b", "-g", "x:1", "y:2", "-v"}, []string{"profile", "-m", "a", "-m", "b", "-g", "x:1", "-g", "y:2", "-v"}},
		{[]string{"profile", "-m"}, []string{"profile", "-m"}},
		{[]string{"profile", "--server-metrics-formats", "json", "jsonl"}, []string{"profile", "--server-metrics-formats=json", "--server-metrics-formats=jsonl"}},
		{[]string{"profile", "--gpu-telemetry=nvml", "--", "--gpu-telemetry", "x"}, []string{"profile", "--gpu-telemetry=nvml", "--", "--gpu-telemetry", "x"}},
	}
	for _, tc := range tests {
		if got := expandMultiValue(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("expandMultiValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTelemetryFlags(t *testing.T) {
	cfg, err := parseProfile(expandMultiValue([]string{"--model", "m",
		"--server-metrics", "node1:8081", "node2:9090/metrics",
		"--server-metrics-formats", "jsonl",
		"--gpu-telemetry", "nvml", "node3:9400",
		"--server-metrics-collection-interval", "0.25"}))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.ServerMetrics, []string{"node1:8081", "node2:9090/metrics"}) {
		t.Errorf("server metrics: %q", cfg.ServerMetrics)
	}
	if !reflect.DeepEqual(cfg.ServerMetricsFormats, []string{"jsonl"}) {
		t.Errorf("formats replace the default: %q", cfg.ServerMetricsFormats)
	}
	if !reflect.DeepEqual(cfg.GPUTelemetry, []string{"nvml", "node3:9400"}) || !cfg.ShowGPUTelemetry() {
		t.Errorf("gpu telemetry: %q show=%v", cfg.GPUTelemetry, cfg.ShowGPUTelemetry())
	}
	if cfg.ServerMetricsInterval != 250*time.Millisecond || cfg.GPUInterval != 333*time.Millisecond {
		t.Errorf("intervals: %v %v", cfg.ServerMetricsInterval, cfg.GPUInterval)
	}

	t.Setenv("AIPERF_SERVER_METRICS_COLLECTION_INTERVAL", "0.5")
	t.Setenv("AIPERF_GPU_DEFAULT_DCGM_ENDPOINTS", "http://h1:9400/metrics,http://h2:9400/metrics")
	cfg, err = parseProfile(expandMultiValue([]string{"--model", "m", "--gpu-telemetry"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ServerMetricsInterval != 500*time.Millisecond || len(cfg.GPUTelemetry) != 0 || !cfg.ShowGPUTelemetry() {
		t.Errorf("env interval %v, bare --gpu-telemetry %q show=%v", cfg.ServerMetricsInterval, cfg.GPUTelemetry, cfg.ShowGPUTelemetry())
	}
	if !reflect.DeepEqual(cfg.DCGMEndpoints, []string{"http://h1:9400/metrics", "http://h2:9400/metrics"}) {
		t.Errorf("default DCGM endpoints from env: %q", cfg.DCGMEndpoints)
	}
}

func TestTelemetryFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--no-server-metrics", "--server-metrics", "a:1"}, "Cannot use both --no-server-metrics and --server-metrics together"},
		{[]string{"--no-gpu-telemetry", "--gpu-telemetry", "nvml"}, "Cannot use both --no-gpu-telemetry and --gpu-telemetry together"},
		{[]string{"--gpu-telemetry", "bogus"}, "Invalid GPU telemetry item: bogus"},
		{[]string{"--gpu-telemetry", "amdsmi"}, "--gpu-telemetry amdsmi is not supported"},
		{[]string{"--gpu-telemetry", "my.csv"}, "custom metrics CSV files are not supported"},
		{[]string{"--server-metrics-formats", "parquet"}, `--server-metrics-formats "parquet" is not valid`},
		{[]string{"--server-metrics", "ftp://x"}, `--server-metrics "ftp://x" is not a valid URL`},
		{[]string{"--server-metrics-collection-interval", "0"}, "--server-metrics-collection-interval must be between"},
	}
	// A bad URL is named without its credentials.
	for _, flag := range []string{"--server-metrics", "--gpu-telemetry"} {
		_, err := parseProfile(expandMultiValue([]string{"--model", "m", flag, "ftp://user:hunter2@node1:9400/metrics"}))
		if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "node1") {
			t.Errorf("%s with credentials: %v", flag, err)
		}
	}
	for _, tc := range tests {
		_, err := parseProfile(expandMultiValue(append([]string{"--model", "m"}, tc.args...)))
		var ue *command.UsageError
		if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want a usage error containing %q", tc.args, err, tc.want)
		}
	}
}
