//go:build integration

package plot

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// chromium runs Debian's headless chromium (installed by
// scripts/chromium.sh) with args and returns its output; it skips the test
// when chromium is missing, unless the integration run requires it.
func chromium(t *testing.T, dir string, args ...string) string {
	t.Helper()
	browser, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("AIPERF_TEST_REQUIRE_STORES") != "" {
			t.Fatal("chromium not found: run scripts/chromium.sh")
		}
		t.Skip("chromium not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--hide-scrollbars",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--enable-logging=stderr", "--v=0",
		"--force-device-scale-factor=1"}
	out, err := exec.CommandContext(ctx, browser, append(base, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	return string(out)
}

// browserErrors reports console messages and failed loads as Chromium logs
// them.
func browserErrors(t *testing.T, out string) {
	t.Helper()
	bad := regexp.MustCompile(`(?i)CONSOLE\(|Uncaught|net::ERR_|Failed to load`)
	for _, line := range strings.Split(out, "\n") {
		if bad.MatchString(line) {
			t.Errorf("browser: %s", line)
		}
	}
}

// TestReportOpensInChromium loads report.html in headless Chromium: the
// page must load with no console errors or failed requests, and its
// screenshot must show charts, not a blank page.
func TestReportOpensInChromium(t *testing.T) {
	dir := t.TempDir()
	if _, err := Render(context.Background(), testDB(t), dir, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "screenshot.png")
	out := chromium(t, dir, "--window-size=1200,2400", "--screenshot="+shot, "file://"+filepath.Join(dir, "report.html"))
	browserErrors(t, out)
	img := decodePNG(t, shot)
	if colors, dark := inkStats(img, img.Bounds()); colors < 8 || dark < 2000 {
		t.Fatalf("the page looks blank: %d colours, %d dark pixels", colors, dark)
	}
}

// pageState is what stateJS reads of the report's charts.
type pageState struct {
	Groups         []string
	LegendPosition string
	OverflowX      float64
	Charts         map[string]struct{ Canvas, Area box }
}

// box is a rectangle in viewport CSS pixels.
type box struct{ Left, Top, Width, Height float64 }

type datasetState struct {
	Group, Kind string
	Visible     bool
}

const (
	// frames waits for two animation frames: Chart.js handles input
	// events on the next frame.
	frames = `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`
	// stateJS reads the groups, the legend's place, the page's overflow
	// and each chart's canvas and plot area.
	stateJS = `(() => {
		const R = window.aiperfReport, trade = R.charts.tradeoff;
		const charts = {};
		for (const [kind, c] of Object.entries(R.charts)) {
			const r = c.canvas.getBoundingClientRect(), a = c.chartArea;
			charts[kind] = {canvas: {left: r.left, top: r.top, width: r.width, height: r.height},
				area: {left: r.left + a.left, top: r.top + a.top, width: a.right - a.left, height: a.bottom - a.top}};
		}
		return {groups: trade.data.datasets.filter(d => d.kind === 'runs').map(d => d.label),
			legendPosition: trade.options.plugins.legend.position,
			overflowX: document.documentElement.scrollWidth - document.documentElement.clientWidth, charts};
	})()`
	// pointJS is the second point of the tradeoff chart's first group.
	pointJS = `(() => {
		const c = window.aiperfReport.charts.tradeoff, r = c.canvas.getBoundingClientRect();
		const i = c.data.datasets.findIndex(d => d.kind === 'runs');
		const el = c.getDatasetMeta(i).data[1], p = c.data.datasets[i].data[1];
		return {x: r.left + el.x, y: r.top + el.y, run: p.run.id, load: p.run.load, value: p.x};
	})()`
	// tooltipJS is the tooltip's text, "" while it is hidden.
	tooltipJS = `(() => { const t = document.getElementById('aiperf-tooltip');
		return t.hidden || t.offsetWidth === 0 ? '' : t.innerText; })()`
	// legendJS is the first legend entry's centre and group.
	legendJS = `(() => {
		const c = window.aiperfReport.charts.tradeoff, r = c.canvas.getBoundingClientRect();
		const h = c.legend.legendHitBoxes[0], item = c.legend.legendItems[0];
		return {x: r.left + h.left + h.width / 2, y: r.top + h.top + h.height / 2,
			group: c.data.datasets[item.datasetIndex].group};
	})()`
	// visibleJS lists each chart's datasets with their visibility.
	visibleJS = `Object.fromEntries(Object.entries(window.aiperfReport.charts).map(([k, c]) =>
		[k, c.data.datasets.map((d, i) => ({group: d.group, kind: d.kind, visible: c.isDatasetVisible(i)}))]))`
	// sweepJS is the sweep chart's y values, its first dataset's pixel
	// rows, its y title and the tradeoff chart's first group's x values.
	sweepJS = `(() => { const R = window.aiperfReport, s = R.charts.sweep, t = R.charts.tradeoff;
		return {ys: s.data.datasets.map(d => d.data.map(p => p.y)), pixels: s.getDatasetMeta(0).data.map(e => e.y),
			title: s.options.scales.y.title.text, tradeoffX: t.data.datasets[0].data.map(p => p.x)}; })()`
)

// sweepState is what sweepJS reads.
type sweepState struct {
	Ys        [][]float64
	Pixels    []float64
	Title     string
	TradeoffX []float64
}

// TestReportInteractionsInChromium drives the interactive charts of a
// report of sweeps in headless Chromium over the DevTools protocol, with
// real mouse events, at a desktop and a phone width: hovering a point
// shows a tooltip naming its run, load and value; clicking a legend entry
// hides that group's line and frontier on both charts; switching the
// statistic and the metric changes the plotted y values. Screenshots at
// both widths must show both charts with no large blank region inside
// either chart's plot area.
func TestReportInteractionsInChromium(t *testing.T) {
	dir := t.TempDir()
	if _, err := Render(context.Background(), sweepDB(t), dir, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	url := "file://" + filepath.Join(dir, "report.html")
	for _, width := range []int{1280, 420} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			b := startBrowser(t, width, 1800)
			b.open(t, url, "window.aiperfReport")
			var st pageState
			b.eval(t, stateJS, &st)
			checkLayout(t, st, width)
			shot := b.screenshot(t)
			img, err := png.Decode(bytes.NewReader(shot))
			if err != nil {
				t.Fatal(err)
			}
			for _, kind := range []string{"tradeoff", "sweep"} {
				c, ok := st.Charts[kind]
				if !ok {
					t.Fatalf("no %s chart", kind)
				}
				checkChartInk(t, img, kind, c.Canvas, c.Area)
			}
			// AIPERF_TEST_SCREENSHOTS keeps the screenshots (a CI artifact).
			if keep := os.Getenv("AIPERF_TEST_SCREENSHOTS"); keep != "" {
				name := filepath.Join(keep, "report-"+strconv.Itoa(width)+".png")
				if err := os.WriteFile(name, shot, 0o644); err != nil {
					t.Error(err)
				}
			}
			checkHover(t, b, "report-"+strconv.Itoa(width)+"-hover.png")
			checkLegend(t, b)
			checkSwitches(t, b)
			browserErrors(t, b.log())
		})
	}
}

func checkLayout(t *testing.T, st pageState, width int) {
	t.Helper()
	want := []string{"llama-8b · chat · gpu=a100", "llama-8b · chat · gpu=h100", "mistral-7b · completions"}
	if strings.Join(st.Groups, "|") != strings.Join(want, "|") {
		t.Errorf("groups %q, want %q", st.Groups, want)
	}
	if wantPos := map[bool]string{true: "right", false: "bottom"}[width >= 640]; st.LegendPosition != wantPos {
		t.Errorf("legend at %q, want %q (outside the data)", st.LegendPosition, wantPos)
	}
	if st.OverflowX > 0 {
		t.Errorf("the page is %v px wider than the window", st.OverflowX)
	}
}

// checkHover moves the mouse onto a point, then off it; with
// AIPERF_TEST_SCREENSHOTS it keeps a screenshot of the tooltip as shot.
func checkHover(t *testing.T, b *browser, shot string) {
	t.Helper()
	var pt struct {
		X, Y      float64
		Run, Load string
		Value     float64
	}
	b.eval(t, pointJS, &pt)
	b.mouse(t, "mouseMoved", pt.X, pt.Y)
	b.eval(t, frames, nil)
	var text string
	b.eval(t, tooltipJS, &text)
	if pt.Load == "" || !strings.Contains(text, pt.Run) || !strings.Contains(text, pt.Load) ||
		!strings.Contains(text, "TTFT p50: "+jsNum(pt.Value)+" ms") {
		t.Errorf("hover on %s (%s, TTFT p50 %v ms): tooltip %q", pt.Run, pt.Load, pt.Value, text)
	}
	if keep := os.Getenv("AIPERF_TEST_SCREENSHOTS"); keep != "" {
		if err := os.WriteFile(filepath.Join(keep, shot), b.screenshot(t), 0o644); err != nil {
			t.Error(err)
		}
	}
	b.mouse(t, "mouseMoved", 2, 2)
	b.eval(t, frames, nil)
	if b.eval(t, tooltipJS, &text); text != "" {
		t.Errorf("the tooltip stays after the mouse leaves the point: %q", text)
	}
}

// checkLegend clicks the first legend entry twice: its group hides on both
// charts, then shows again.
func checkLegend(t *testing.T, b *browser) {
	t.Helper()
	var entry struct {
		X, Y  float64
		Group string
	}
	b.eval(t, legendJS, &entry)
	b.mouse(t, "click", entry.X, entry.Y)
	b.eval(t, frames, nil)
	var vis map[string][]datasetState
	b.eval(t, visibleJS, &vis)
	for kind, sets := range vis {
		for _, d := range sets {
			if d.Visible == (d.Group == entry.Group) {
				t.Errorf("after clicking legend %q: %s chart, %s %s visible=%v", entry.Group, kind, d.Group, d.Kind, d.Visible)
			}
		}
	}
	b.mouse(t, "click", entry.X, entry.Y)
	b.eval(t, frames, nil)
	b.eval(t, visibleJS, &vis)
	for kind, sets := range vis {
		for _, d := range sets {
			if !d.Visible {
				t.Errorf("a second click leaves %s chart's %s %s hidden", kind, d.Group, d.Kind)
			}
		}
	}
}

// checkSwitches switches the statistic to p99, then the metric to ITL.
func checkSwitches(t *testing.T, b *browser) {
	t.Helper()
	// The first group, a100, ran at c=1, 2, 4, 8 with TTFT p50 35(1+c/3)
	// ms; p99 is 1.8 × p50 and ITL a tenth of TTFT (sweepDB).
	var p50, p99, itl []float64
	for _, c := range []float64{1, 2, 4, 8} {
		v := 35 * (1 + c/3)
		p50, p99, itl = append(p50, v), append(p99, 1.8*v), append(itl, 1.8*v/10)
	}
	var before, after, metric sweepState
	b.eval(t, sweepJS, &before)
	change := func(id, value string) {
		b.eval(t, `(() => { const s = document.getElementById('`+id+`'); s.value = '`+value+`';
			s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`, nil)
		b.eval(t, frames, nil)
	}
	change("aiperf-stat", "p99")
	b.eval(t, sweepJS, &after)
	if len(before.Ys) == 0 || !near(before.Ys[0], p50) || len(after.Ys) == 0 || !near(after.Ys[0], p99) || !near(after.TradeoffX, p99) {
		t.Errorf("stat p50 → p99: y %v → %v, want %v → %v; tradeoff x %v", before.Ys, after.Ys, p50, p99, after.TradeoffX)
	}
	if near(before.Pixels, after.Pixels) {
		t.Errorf("the stat switch left the points where they were: %v", after.Pixels)
	}
	if before.Title != "TTFT p50 (ms)" || after.Title != "TTFT p99 (ms)" {
		t.Errorf("y axis %q → %q", before.Title, after.Title)
	}
	change("aiperf-metric", "inter_token_latency")
	b.eval(t, sweepJS, &metric)
	if len(metric.Ys) == 0 || !near(metric.Ys[0], itl) || metric.Title != "ITL p99 (ms)" {
		t.Errorf("metric ITL: y %v (%q), want %v", metric.Ys, metric.Title, itl)
	}
}

// jsNum formats v as report.js's fmt does: three significant digits
// below 100, whole numbers above.
func jsNum(v float64) string {
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func near(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-6*math.Max(1, math.Abs(b[i])) {
			return false
		}
	}
	return true
}

// checkChartInk fails when a chart's canvas is blank, or when a large
// region inside its plot area is: Chart.js draws grid lines across the
// whole plot area, so every cell of a 4 × 3 grid over it holds some ink
// unless the chart was not drawn (or was drawn squashed into a corner).
func checkChartInk(t *testing.T, img image.Image, kind string, canvas, area box) {
	t.Helper()
	if area.Width < 150 || area.Height < 150 {
		t.Errorf("%s: plot area %.0f × %.0f px, too small to read", kind, area.Width, area.Height)
		return
	}
	r := image.Rect(int(canvas.Left), int(canvas.Top), int(canvas.Left+canvas.Width), int(canvas.Top+canvas.Height))
	if !r.In(img.Bounds()) {
		t.Errorf("%s: canvas %v is outside the screenshot %v", kind, r, img.Bounds())
		return
	}
	// Chart.js draws its text in grey (#666), its points and lines in the
	// groups' colours.
	if colors, ink := inkStats(img, r); colors < 6 || nonWhite(img, r) < 2000 {
		t.Errorf("%s: the canvas looks blank: %d colours, %d dark pixels, %d inked", kind, colors, ink, nonWhite(img, r))
	}
	const cols, rows = 4, 3
	for i := 0; i < cols; i++ {
		for j := 0; j < rows; j++ {
			x0 := int(area.Left + area.Width*float64(i)/cols)
			y0 := int(area.Top + area.Height*float64(j)/rows)
			cell := image.Rect(x0, y0, int(area.Left+area.Width*float64(i+1)/cols), int(area.Top+area.Height*float64(j+1)/rows))
			if ink := nonWhite(img, cell); ink < 20 {
				t.Errorf("%s: plot area cell (%d,%d) %v is blank (%d inked pixels)", kind, i, j, cell, ink)
			}
		}
	}
}

// nonWhite counts the pixels of r that are not background white.
func nonWhite(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr < 0xf400 || cg < 0xf400 || cb < 0xf400 {
				n++
			}
		}
	}
	return n
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// inkStats counts the distinct colours of img within r and its dark pixels.
func inkStats(img image.Image, r image.Rectangle) (colors, dark int) {
	seen := map[uint32]bool{}
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			cr, g, bl, _ := img.At(x, y).RGBA()
			seen[(cr>>11)<<10|(g>>11)<<5|bl>>11] = true
			if cr+g+bl < 3*0x4000 {
				dark++
			}
		}
	}
	return len(seen), dark
}
