//go:build integration

package plot

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestReportOpensInChromium loads report.html in headless Chromium (Debian's
// chromium package, installed by scripts/chromium.sh): the page must load
// with no console errors or failed requests, and its screenshot must show
// charts, not a blank page.
func TestReportOpensInChromium(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("AIPERF_TEST_REQUIRE_STORES") != "" {
			t.Fatal("chromium not found: run scripts/chromium.sh")
		}
		t.Skip("chromium not installed")
	}
	dir := t.TempDir()
	if _, err := Render(context.Background(), testDB(t), dir, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "screenshot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--enable-logging=stderr", "--v=0",
		"--window-size=1200,2400", "--screenshot="+shot, "file://"+filepath.Join(dir, "report.html"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	// Console messages and failed loads as Chromium logs them.
	bad := regexp.MustCompile(`(?i)CONSOLE\(|Uncaught|net::ERR_|Failed to load`)
	for _, line := range strings.Split(string(out), "\n") {
		if bad.MatchString(line) {
			t.Errorf("browser: %s", line)
		}
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, out)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if colors, dark := inkStats(img); colors < 8 || dark < 2000 {
		t.Fatalf("the page looks blank: %d colours, %d dark pixels", colors, dark)
	}
	t.Logf("screenshot %s", shot)
}

// inkStats counts the distinct colours of img and its dark pixels.
func inkStats(img image.Image) (colors, dark int) {
	seen := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[(r>>11)<<10|(g>>11)<<5|bl>>11] = true
			if r+g+bl < 3*0x4000 {
				dark++
			}
		}
	}
	return len(seen), dark
}
