package plot

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/query"
)

// sweepRun is one run of sweepDB.
type sweepRun struct {
	id, model, endpoint, labels, status, manifest string
	conc                                          int     // 0: a request-rate run
	rate, ttft, tput, errors                      float64 // ttft is the p50 in ms
}

// sweepRuns are three groups under the default grouping: two concurrency
// sweeps of one model on two GPUs (labels) and a request-rate sweep of
// another model, with a degraded run (c=16 on h100) and a failed one.
var sweepRuns = func() []sweepRun {
	var runs []sweepRun
	for i, c := range []int{1, 2, 4, 8, 16} {
		r := sweepRun{id: fmt.Sprintf("h100-c%02d", c), model: "llama-8b", endpoint: "chat", labels: `{"gpu":"h100"}`,
			status: "complete", conc: c, ttft: 20 * (1 + float64(c)/4), tput: 900 * float64(c) / (1 + float64(c)/6)}
		if c == 16 {
			r.manifest = `{"validity":{"degraded":true,"reasons":["schedule lateness p99 42 ms > 10 ms"]}}`
		}
		if i == 3 {
			r.errors = 2
		}
		runs = append(runs, r)
	}
	for _, c := range []int{1, 2, 4, 8} {
		runs = append(runs, sweepRun{id: fmt.Sprintf("a100-c%02d", c), model: "llama-8b", endpoint: "chat", labels: `{"gpu":"a100"}`,
			status: "complete", conc: c, ttft: 35 * (1 + float64(c)/3), tput: 500 * float64(c) / (1 + float64(c)/5)})
	}
	for _, rate := range []float64{5, 10, 20} {
		runs = append(runs, sweepRun{id: fmt.Sprintf("mistral-r%02.0f", rate), model: "mistral-7b", endpoint: "completions",
			status: "complete", rate: rate, ttft: 30 + rate, tput: 60 * rate})
	}
	runs = append(runs, sweepRun{id: "mistral-r40", model: "mistral-7b", endpoint: "completions", status: "failed",
		rate: 40, ttft: 400, tput: 1000, errors: 90})
	return runs
}()

// sweepDB returns an in-memory database holding sweepRuns, oldest first.
func sweepDB(t testing.TB) *sql.DB {
	t.Helper()
	ctx := context.Background()
	db, err := query.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for i, r := range sweepRuns {
		var conc, rate, labels, manifest any
		mode := "request_rate"
		if r.conc > 0 {
			conc, mode = r.conc, "concurrency"
		} else {
			rate = r.rate
		}
		if r.labels != "" {
			labels = r.labels
		}
		if r.manifest != "" {
			manifest = r.manifest
		}
		if _, err := db.SQL().ExecContext(ctx, `INSERT INTO runs (run_id, source, status, start_time, model, endpoint_type,
			load_mode, concurrency, request_rate, labels, manifest, ingested_at, content_key)
			VALUES (?, 's', ?, TIMESTAMP '2026-01-01 00:00:00' + to_minutes(?::BIGINT), ?, ?, ?, ?, ?, ?, ?, now(), ?)`,
			r.id, r.status, i, r.model, r.endpoint, mode, conc, rate, labels, manifest, "k"+r.id); err != nil {
			t.Fatal(err)
		}
		metric := func(tag string, p50 float64) {
			if _, err := db.SQL().ExecContext(ctx, `INSERT INTO run_metrics (run_id, tag, unit, avg, p50, p90, p99, scalar)
				VALUES (?, ?, 'ms', ?, ?, ?, ?, false)`, r.id, tag, 1.1*p50, p50, 1.3*p50, 1.8*p50); err != nil {
				t.Fatal(err)
			}
		}
		metric("time_to_first_token", r.ttft)
		metric("inter_token_latency", r.ttft/10)
		metric("request_latency", r.ttft*8)
		for tag, v := range map[string]float64{"output_token_throughput": r.tput, "request_count": 100 - r.errors, "error_request_count": r.errors} {
			if _, err := db.SQL().ExecContext(ctx, `INSERT INTO run_metrics (run_id, tag, unit, avg, scalar)
				VALUES (?, ?, '', ?, true)`, r.id, tag, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	return db.SQL()
}

// TestRenderSweeps: by default runs group by model, endpoint and labels,
// so one model's sweeps on two GPUs are two groups; each group has its own
// frontier; the runs table shows model, labels, load, error rate and
// validity, marking the degraded and the failed run; the page embeds
// Chart.js and stays small.
func TestRenderSweeps(t *testing.T) {
	dir := t.TempDir()
	if _, err := Render(context.Background(), sweepDB(t), dir, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	html := readFile(t, filepath.Join(dir, "report.html"))
	checkSelfContained(t, html)
	for id, want := range map[string][]string{
		"h100-c08":    {"h100-c08", "llama-8b · chat · gpu=h100", "llama-8b", "gpu=h100", "c=8", "2.0%", "ok", "60.00", "3085.71", "yes"},
		"h100-c16":    {"h100-c16", "llama-8b · chat · gpu=h100", "llama-8b", "gpu=h100", "c=16", "0.0%", "degraded: schedule lateness p99 42 ms &gt; 10 ms", "100.00", "3927.27", ""},
		"a100-c02":    {"a100-c02", "llama-8b · chat · gpu=a100", "llama-8b", "gpu=a100", "c=2", "0.0%", "ok", "58.33", "714.29", "yes"},
		"mistral-r40": {"mistral-r40", "mistral-7b · completions", "mistral-7b", "", "r=40/s", "90.0%", "failed", "400.00", "1000.00", ""},
	} {
		if got := tableRow(t, html, id); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("row %s = %q\nwant %q", id, got, want)
		}
	}
	for _, id := range []string{"h100-c16", "mistral-r40"} {
		if !strings.Contains(html, `<tr class="marked"><td>`+id+`</td>`) {
			t.Errorf("run %s is not marked", id)
		}
	}
	if !strings.Contains(html, "Chart.js v4.6.1") || !strings.Contains(html, "window.AIPERF_DATA = ") {
		t.Error("report.html does not embed Chart.js and its data")
	}
	if len(html) > 1<<20 {
		t.Errorf("report.html is %d bytes, want < 1 MiB", len(html))
	}
	t.Logf("report.html: %d bytes", len(html))

	d := newPageData(mustRuns(t, sweepDB(t), Options{}))
	if len(d.Groups) != 3 || len(d.Runs) != len(sweepRuns) || d.SweepAxis != "concurrency, or request rate (requests/s)" {
		t.Errorf("page data: %d groups, %d runs, axis %q", len(d.Groups), len(d.Runs), d.SweepAxis)
	}
	for _, r := range d.Runs {
		if r.ID == "mistral-r40" && (!r.Marked || r.Label != "r=40/s" || *r.Stats["time_to_first_token"]["p99"] != 1.8*400) {
			t.Errorf("page run %+v", r)
		}
	}
}

func mustRuns(t *testing.T, db *sql.DB, o Options) []runInfo {
	t.Helper()
	runs, err := loadRuns(context.Background(), db, nil, whereClause{}, o)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// TestRenderWhere: --where keeps the runs a predicate over runs holds
// for, and refuses anything but one predicate, leaving the database as it
// was.
func TestRenderWhere(t *testing.T) {
	db := sweepDB(t)
	dir := t.TempDir()
	if _, err := Render(context.Background(), db, dir, nil, Options{Where: "(labels->>'gpu') = 'h100' -- a comment"}); err != nil {
		t.Fatal(err)
	}
	html := readFile(t, filepath.Join(dir, "report.html"))
	if strings.Count(html, "<tr><td>h100-") != 4 || strings.Contains(html, "<td>a100-") || strings.Contains(html, "<td>mistral-") {
		t.Error("--where kept other runs than the h100 ones")
	}
	for _, bad := range []string{
		"true; DROP TABLE runs",
		"true)); DROP TABLE runs; SELECT ((true",
		"true)); SELECT 1; SELECT run_id FROM runs WHERE ((true",
		"no_such_column = 1",
		"model =",
	} {
		_, err := Render(context.Background(), db, t.TempDir(), nil, Options{Where: bad})
		if !errors.Is(err, ErrWhere) {
			t.Errorf("--where %q: %v, want ErrWhere", bad, err)
		}
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM runs`).Scan(&n); err != nil || n != len(sweepRuns) {
		t.Fatalf("runs after refused filters: %d %v", n, err)
	}
	// A named run the filter leaves out is not an error.
	if _, err := Render(context.Background(), db, t.TempDir(), []string{"h100-c01", "a100-c01"}, Options{Where: "model = 'llama-8b' AND concurrency = 1 AND (labels->>'gpu') = 'h100'"}); err != nil {
		t.Fatal(err)
	}
}

// TestGroupColorsStable: a group's colour comes from its name, not its
// place among the report's groups: it is the same in a report with fewer
// groups.
func TestGroupColorsStable(t *testing.T) {
	db := sweepDB(t)
	swatch := func(o Options) map[string]string {
		dir := t.TempDir()
		if _, err := Render(context.Background(), db, dir, nil, o); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		re := regexp.MustCompile(`background: (#[0-9a-f]{6})"></span>([^<]+)</td>`)
		for _, m := range re.FindAllStringSubmatch(readFile(t, filepath.Join(dir, "report.html")), -1) {
			out[m[2]] = m[1]
		}
		return out
	}
	all := swatch(Options{})
	some := swatch(Options{Where: "(labels->>'gpu') = 'h100'"})
	const g = "llama-8b · chat · gpu=h100"
	if all[g] == "" || all[g] != some[g] || len(some) != 1 {
		t.Errorf("colour of %q: %q with every group, %q alone (%v)", g, all[g], some[g], some)
	}
	if all[g] != colorHex(groupColor(g)) {
		t.Errorf("swatch %s, groupColor %s", all[g], colorHex(groupColor(g)))
	}
}

// TestSweepOrder: a group's points are joined in order of load, runs of
// unknown load last.
func TestSweepOrder(t *testing.T) {
	nan := math.NaN()
	pts := []Point{{RunID: "c8", Sweep: 8}, {RunID: "u", Sweep: nan}, {RunID: "c1", Sweep: 1}, {RunID: "c4", Sweep: 4}}
	if got := ids(sweepOrder(pts)); strings.Join(got, " ") != "c1 c4 c8 u" {
		t.Errorf("order %v", got)
	}
}

// TestParetoLegendOutside: the legend is drawn right of the plot, which
// keeps the width it was given: the PNG is wider than the chart, with ink
// in the added strip.
func TestParetoLegendOutside(t *testing.T) {
	c, err := Pareto([]Point{
		{RunID: "a", Group: "a group with a long name", X: 1, Y: 2, Sweep: 1, Label: "c=1"},
		{RunID: "b", Group: "a group with a long name", X: 2, Y: 4, Sweep: 2, Label: "c=2"},
		{RunID: "c", Group: "other", X: 3, Y: 3, Sweep: 1, Marked: true},
	}, "x", "y")
	if err != nil {
		t.Fatal(err)
	}
	wt, err := c.WriterTo(chartWidth, chartHeight, "png")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	plotPx := int(chartWidth.Dots(96))
	if img.Bounds().Dx() <= plotPx+50 {
		t.Fatalf("chart %d px wide, want the %d px plot plus a legend", img.Bounds().Dx(), plotPx)
	}
	legend := image.Rect(plotPx, 0, img.Bounds().Dx(), img.Bounds().Dy())
	dark := 0
	for y := legend.Min.Y; y < legend.Max.Y; y++ {
		for x := legend.Min.X; x < legend.Max.X; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r+g+bl < 3*0x8000 {
				dark++
			}
		}
	}
	if dark < 200 {
		t.Errorf("no legend right of the plot: %d dark pixels", dark)
	}
}
