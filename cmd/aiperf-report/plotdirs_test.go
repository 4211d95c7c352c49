package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// copyDir copies the files of the directory src (one level) into a new
// directory under t.TempDir() named base, and returns it.
func copyDir(t *testing.T, src, base string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), base)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// readPage returns dir/report.html.
func readPage(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPlotDirSingleRun: plot DIR of a run aiperf-go's runner wrote needs
// no --db (there is none) and no --output (it defaults to DIR/plots), and
// draws the run's per-run charts (single-run mode).
func TestPlotDirSingleRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "artifacts")
	id, _ := benchmark(t, dir, 2*time.Millisecond)
	db := filepath.Join(t.TempDir(), "absent.duckdb")
	code, stdout, errs := reportCLI(t, "--db", db, "plot", dir)
	if code != 0 {
		t.Fatalf("plot %s: exit %d: %s", dir, code, errs)
	}
	out := filepath.Join(dir, "plots")
	for _, f := range []string{id + "-ttft.png", id + "-latency.svg", "report.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v (stdout %s)", f, err, stdout)
		}
	}
	if page := readPage(t, out); !strings.Contains(page, "<td>"+id+"</td>") {
		t.Errorf("report.html does not list run %s", id)
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("plot DIR created --db %s", db)
	}
}

// TestPlotPythonAIPerfDirs: plot takes Python AIPerf artifact directories
// (0.13 with records, 0.8 with only its summary), alone and together; the
// run id is aiperf- plus the summary's benchmark_id.
func TestPlotPythonAIPerfDirs(t *testing.T) {
	new013 := copyDir(t, "testdata/python-aiperf/aiperf-0.13", "run013")
	old08 := copyDir(t, "testdata/python-aiperf/baseline-chat", "run08")
	const id013, id08 = "aiperf-c92d26d118c8", "aiperf-cf9a7da02a534390b4aa6cf08156a56d"

	out := filepath.Join(t.TempDir(), "single")
	if code, _, errs := reportCLI(t, "plot", new013, "--output", out); code != 0 {
		t.Fatalf("plot %s: exit %d: %s", new013, code, errs)
	}
	if _, err := os.Stat(filepath.Join(out, id013+"-latency.png")); err != nil {
		t.Errorf("single-run mode draws the run's charts: %v", err)
	}

	out = filepath.Join(t.TempDir(), "multi")
	if code, _, errs := reportCLI(t, "plot", new013, old08, "--output", out, "--theme", "dark"); code != 0 {
		t.Fatalf("plot two dirs: exit %d: %s", code, errs)
	}
	page := readPage(t, out)
	for _, want := range []string{"<td>" + id013 + "</td>", "<td>" + id08 + "</td>", "background: #1e1e1e"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "pareto.png")); err != nil {
		t.Errorf("multi-run mode draws the Pareto chart: %v", err)
	}
}

// TestPlotDirsMultiRun: two directories of aiperf-go runs put both runs on
// the sweep charts and draw the newest one's per-run charts only.
func TestPlotDirsMultiRun(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	idA, _ := benchmark(t, a, 2*time.Millisecond)
	idB, _ := benchmark(t, b, 4*time.Millisecond)
	if code, _, errs := reportCLI(t, "plot", a, b); code != 0 {
		t.Fatalf("plot a b: exit %d: %s", code, errs)
	}
	out := filepath.Join(a, "plots")
	page := readPage(t, out)
	for _, id := range []string{idA, idB} {
		if !strings.Contains(page, "<td>"+id+"</td>") {
			t.Errorf("report.html does not list run %s", id)
		}
	}
	if _, err := os.Stat(filepath.Join(out, idB+"-ttft.png")); err != nil {
		t.Errorf("the newest run's charts: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, idA+"-ttft.png")); err == nil {
		t.Errorf("multi-run mode drew the older run's per-run charts")
	}
}

// TestPlotDirErrors: bad directory arguments and themes are refused with
// a message naming them.
func TestPlotDirErrors(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing dir", []string{"plot", "./no-such-dir"}, 1, "no such directory"},
		{"no runs", []string{"plot", empty}, 1, "no runs found"},
		{"dir and run id", []string{"plot", empty, "20261122T035800Z-1a2b3c4d"}, 2, "not both"},
		{"bad theme", []string{"plot", empty, "--theme", "blue"}, 2, "--theme"},
		{"run ids need --output", []string{"plot", "20261122T035800Z-1a2b3c4d"}, 2, "--output"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := reportCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.msg) {
				t.Fatalf("exit %d %q, want %d naming %q", code, errs, tc.code, tc.msg)
			}
		})
	}
}
