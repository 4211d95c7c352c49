package plot

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/query"
)

// testDB returns an in-memory database with three complete runs of two
// models, a failed run, and the requests of run r3 (newest) and r1.
func testDB(t *testing.T) *sql.DB {
	t.Helper()
	ctx := context.Background()
	db, err := query.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	stmts := []string{
		`INSERT INTO runs (run_id, source, status, start_time, model, ingested_at, content_key) VALUES
			('r1', 's', 'complete', TIMESTAMP '2026-01-01 00:00:00', 'model-a', now(), 'k1'),
			('r2', 's', 'complete', TIMESTAMP '2026-01-02 00:00:00', 'model-a', now(), 'k2'),
			('r3', 's', 'complete', TIMESTAMP '2026-01-03 00:00:00', 'model-b', now(), 'k3'),
			('r4', 's', 'failed',   TIMESTAMP '2026-01-04 00:00:00', 'model-b', now(), 'k4')`,
		// r1: 20 ms, 500 tok/s; r2: 30 ms, 400 tok/s (dominated by r1); r3: 50 ms, 900 tok/s.
		`INSERT INTO run_metrics (run_id, tag, unit, avg, p50, scalar) VALUES
			('r1', 'time_to_first_token', 'ms', 21, 20, false),
			('r1', 'output_token_throughput', 'tokens/sec', 500, NULL, true),
			('r2', 'time_to_first_token', 'ms', 31, 30, false),
			('r2', 'output_token_throughput', 'tokens/sec', 400, NULL, true),
			('r3', 'time_to_first_token', 'ms', 51, 50, false),
			('r3', 'output_token_throughput', 'tokens/sec', 900, NULL, true),
			('r4', 'time_to_first_token', 'ms', 1, 1, false),
			('r4', 'output_token_throughput', 'tokens/sec', 9999, NULL, true)`,
		`INSERT INTO requests (run_id, request_num, phase, request_start_ns, time_to_first_token, request_latency, valid)
			SELECT 'r3', i, 'profiling', 1000000000 + i * 100000000, 40 + i, 100 + 3 * i, true FROM range(30) t(i)`,
		`INSERT INTO requests (run_id, request_num, phase, request_start_ns, time_to_first_token, request_latency, valid)
			SELECT 'r1', i, 'profiling', 5000000000 + i * 50000000, NULL, 80 + i, true FROM range(10) t(i)`,
	}
	for _, s := range stmts {
		if _, err := db.SQL().ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return db.SQL()
}

func names(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	return out
}

func TestRenderDefault(t *testing.T) {
	db := testDB(t)
	dir := t.TempDir()
	paths, err := Render(context.Background(), db, dir, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"pareto.png", "pareto.svg", "r3-ttft.png", "r3-ttft.svg", "r3-latency-over-time.png", "r3-latency-over-time.svg",
		"r3-latency.png", "r3-latency.svg", "report.html"}
	if got := names(paths); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("files %v, want %v", got, want)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		switch filepath.Ext(p) {
		case ".png":
			if _, err := png.Decode(bytes.NewReader(b)); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		case ".svg":
			checkXML(t, p, b)
		}
	}
	html := readFile(t, filepath.Join(dir, "report.html"))
	checkSelfContained(t, html)
	// The Pareto chart is the page's interactive chart; the per-run charts
	// stay inline SVG.
	if n := strings.Count(html, "<svg"); n != 3 {
		t.Errorf("report.html inlines %d SVGs, want 3", n)
	}
	// Every run is listed, the failed r4 marked and off the frontier; r2 is
	// dominated by r1 in its group.
	wantRows := map[string][]string{
		"r1": {"r1", "model-a", "model-a", "", "", "n/a", "ok", "20.00", "500.00", "yes"},
		"r2": {"r2", "model-a", "model-a", "", "", "n/a", "ok", "30.00", "400.00", ""},
		"r3": {"r3", "model-b", "model-b", "", "", "n/a", "ok", "50.00", "900.00", "yes"},
		"r4": {"r4", "model-b", "model-b", "", "", "n/a", "failed", "1.00", "9999.00", ""},
	}
	for id, want := range wantRows {
		if got := tableRow(t, html, id); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("row %s = %q, want %q", id, got, want)
		}
	}
	if !strings.Contains(html, `<tr class="marked"><td>r4</td>`) {
		t.Error("the failed run r4 is not marked")
	}
}

// tableRow returns the text of the cells of the runs table's row of run id.
func tableRow(t *testing.T, html, id string) []string {
	t.Helper()
	row := regexp.MustCompile(`<tr[^>]*><td>` + regexp.QuoteMeta(id) + `</td>.*?</tr>`).FindString(html)
	if row == "" {
		t.Fatalf("no row for run %s", id)
	}
	tags := regexp.MustCompile(`<[^>]*>`)
	var cells []string
	for _, m := range regexp.MustCompile(`<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(row, -1) {
		cells = append(cells, tags.ReplaceAllString(m[1], ""))
	}
	return cells
}

func TestRenderNamedRuns(t *testing.T) {
	db := testDB(t)
	dir := t.TempDir()
	paths, err := Render(context.Background(), db, dir, []string{"r1", "r4"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// r1 has no TTFT (non-streaming): its TTFT chart is left out and noted;
	// r4 has no requests at all.
	want := "pareto.png pareto.svg r1-latency-over-time.png r1-latency-over-time.svg r1-latency.png r1-latency.svg report.html"
	if got := strings.Join(names(paths), " "); got != want {
		t.Fatalf("files %s, want %s", got, want)
	}
	html := readFile(t, filepath.Join(dir, "report.html"))
	checkSelfContained(t, html)
	for _, s := range []string{"run r1 has no request with a TTFT", "run r4 has no request with a latency", "<td>r4</td>", "<td>r1</td>"} {
		if !strings.Contains(html, s) {
			t.Errorf("report.html lacks %q", s)
		}
	}

	_, err = Render(context.Background(), db, t.TempDir(), []string{"r1", "nope"}, Options{})
	if !errors.Is(err, ErrRunNotFound) || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("unknown run: %v", err)
	}
}

func TestRenderEmpty(t *testing.T) {
	db, err := query.Open(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dir := t.TempDir()
	paths, err := Render(context.Background(), db.SQL(), dir, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names(paths), " "); got != "report.html" {
		t.Fatalf("files %s", got)
	}
	if html := readFile(t, paths[0]); !strings.Contains(html, "No runs.") || strings.Contains(html, "<script") {
		t.Error("report.html must say there are no runs")
	}
}

func TestLoadRequests(t *testing.T) {
	db := testDB(t)
	reqs, err := loadRequests(context.Background(), db, "r3")
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 30 {
		t.Fatalf("%d requests, want 30", len(reqs))
	}
	// Request 7 starts 0.7 s after the first, TTFT 47 ms, latency 121 ms.
	if r := reqs[7]; r.Start < 0.7-1e-9 || r.Start > 0.7+1e-9 || r.TTFT != 47 || r.Latency != 121 {
		t.Errorf("request 7 = %+v", r)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func checkXML(t *testing.T, name string, b []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: not XML: %v", name, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Errorf("%s: root element %q, want svg", name, root)
	}
}

// namespaces are the only URLs a self-contained page may hold, with
// Chart.js's banner naming its home page and that of the colour library it
// bundles (text, never fetched).
var namespaces = regexp.MustCompile(`"http://www\.w3\.org/(2000/svg|1999/xlink)"|https://www\.chartjs\.org|https://github\.com/kurkle/color#readme`)

// checkSelfContained fails when the page could load anything: a URL, a
// script or style from elsewhere. Inline scripts (Chart.js and ours) are
// the page's own.
func checkSelfContained(t *testing.T, html string) {
	t.Helper()
	rest := namespaces.ReplaceAllString(html, `""`)
	for _, s := range []string{"http://", "https://", "src=", "<link", "@import", "url(", "sourceMappingURL"} {
		if strings.Contains(rest, s) {
			t.Errorf("report.html references %q", s)
		}
	}
}

func TestRenderGroupByLabel(t *testing.T) {
	db := testDB(t)
	if _, err := db.Exec(`UPDATE runs SET labels = CASE run_id
		WHEN 'r1' THEN '{"gpu":"h100"}' WHEN 'r3' THEN '{"gpu":"a/b~c"}' END`); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Render(context.Background(), db, dir, nil, Options{GroupBy: "label:gpu"}); err != nil {
		t.Fatal(err)
	}
	html := readFile(t, filepath.Join(dir, "report.html"))
	if !strings.Contains(html, "<th>run</th><th>gpu</th>") {
		t.Error("report.html lacks the gpu column")
	}
	for id, group := range map[string]string{"r1": "h100", "r2": "(no gpu)", "r3": "a/b~c"} {
		if got := tableRow(t, html, id); len(got) < 2 || got[1] != group {
			t.Errorf("row %s = %q, want group %q", id, got, group)
		}
	}
	svg := readFile(t, filepath.Join(dir, "pareto.svg"))
	for _, legend := range []string{"h100", "(no gpu)", "a/b~c"} {
		if !strings.Contains(svg, legend) {
			t.Errorf("pareto.svg legend lacks %q", legend)
		}
	}
	for _, bad := range []string{"label:", "gpu", "labels:gpu"} {
		if _, err := Render(context.Background(), db, t.TempDir(), nil, Options{GroupBy: bad}); !errors.Is(err, ErrGroupBy) {
			t.Errorf("group-by %q: %v, want ErrGroupBy", bad, err)
		}
	}
}
