package plot

import (
	"context"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRenderTheme: the dark theme paints every chart's corner (PNG) and
// the page's background #1e1e1e and sets Chart.js's ink; the light theme
// keeps white charts and no extra style; another name is ErrTheme.
func TestRenderTheme(t *testing.T) {
	db := testDB(t)
	for _, tc := range []struct {
		theme       string
		corner      [3]uint32 // 8-bit RGB of a PNG's top-left pixel
		pageHas     []string
		pageHasNone []string
	}{
		{"", [3]uint32{0xff, 0xff, 0xff}, nil, []string{"#1e1e1e", "Chart.defaults.color"}},
		{ThemeLight, [3]uint32{0xff, 0xff, 0xff}, nil, []string{"#1e1e1e", "Chart.defaults.color"}},
		{ThemeDark, [3]uint32{0x1e, 0x1e, 0x1e}, []string{"body { background: #1e1e1e; color: #e0e0e0; }", `Chart.defaults.color = "#e0e0e0"`}, nil},
	} {
		t.Run("theme="+tc.theme, func(t *testing.T) {
			dir := t.TempDir()
			paths, err := Render(context.Background(), db, dir, nil, Options{Theme: tc.theme})
			if err != nil {
				t.Fatal(err)
			}
			pngs := 0
			for _, p := range paths {
				if !strings.HasSuffix(p, ".png") {
					continue
				}
				pngs++
				f, err := os.Open(p)
				if err != nil {
					t.Fatal(err)
				}
				img, err := png.Decode(f)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				r, g, b, _ := img.At(img.Bounds().Min.X, img.Bounds().Min.Y).RGBA()
				if got := [3]uint32{r >> 8, g >> 8, b >> 8}; got != tc.corner {
					t.Errorf("%s: corner %x, want %x", filepath.Base(p), got, tc.corner)
				}
			}
			if pngs < 3 {
				t.Fatalf("only %d PNGs in %v", pngs, paths)
			}
			page, err := os.ReadFile(filepath.Join(dir, "report.html"))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.pageHas {
				if !strings.Contains(string(page), s) {
					t.Errorf("report.html lacks %q", s)
				}
			}
			for _, s := range tc.pageHasNone {
				if strings.Contains(string(page), s) {
					t.Errorf("report.html holds %q", s)
				}
			}
		})
	}
	if _, err := Render(context.Background(), db, t.TempDir(), nil, Options{Theme: "solarized"}); !errors.Is(err, ErrTheme) {
		t.Fatalf("theme solarized: %v, want ErrTheme", err)
	}
}
