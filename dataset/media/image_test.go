package media

import (
	"bytes"
	"encoding/base64"
	"image"
	_ "image/jpeg" // register the decoder
	_ "image/png"
	"math"
	"strings"
	"testing"
)

// decodeImageURL splits a data URL into its declared format and raw bytes.
func decodeImageURL(t *testing.T, url string) (format string, raw []byte) {
	t.Helper()
	rest, ok := strings.CutPrefix(url, "data:image/")
	if !ok {
		t.Fatalf("not an image data URL: %.40q", url)
	}
	format, b64, ok := strings.Cut(rest, ";base64,")
	if !ok {
		t.Fatalf("no ;base64, in %.40q", url)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("base64: %v", err)
	}
	return format, raw
}

func TestImageSizeAndFormat(t *testing.T) {
	tests := []struct {
		name         string
		cfg          ImageConfig
		wantFormat   string
		wantW, wantH int
	}{
		// SamplePositiveNormalInt with stddev 0 is ceil(mean).
		{"png", ImageConfig{WidthMean: 20, HeightMean: 10, Format: ImagePNG, BatchSize: 1}, "png", 20, 10},
		{"jpeg ceil", ImageConfig{WidthMean: 16.2, HeightMean: 9.01, Format: ImageJPEG, BatchSize: 1}, "jpeg", 17, 10},
		{"one pixel", ImageConfig{WidthMean: 0.3, HeightMean: 1, Format: ImagePNG, BatchSize: 1}, "png", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tt.cfg.generate(seeded(1))
			if err != nil {
				t.Fatal(err)
			}
			format, raw := decodeImageURL(t, s)
			if format != tt.wantFormat {
				t.Fatalf("URL format %q, want %q", format, tt.wantFormat)
			}
			ic, decoded, err := image.DecodeConfig(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			if decoded != tt.wantFormat || ic.Width != tt.wantW || ic.Height != tt.wantH {
				t.Fatalf("decoded %s %dx%d, want %s %dx%d", decoded, ic.Width, ic.Height, tt.wantFormat, tt.wantW, tt.wantH)
			}
		})
	}
}

func TestImagePNGIsOpaqueRGBNoise(t *testing.T) {
	c := ImageConfig{WidthMean: 64, HeightMean: 64, Format: ImagePNG, BatchSize: 1}
	s, err := c.generate(seeded(2))
	if err != nil {
		t.Fatal(err)
	}
	_, raw := decodeImageURL(t, s)
	// IHDR colour type (offset 25): 2 is truecolour RGB without alpha, as
	// Pillow writes an RGB image.
	if raw[24] != 8 || raw[25] != 2 {
		t.Fatalf("IHDR bit depth %d colour type %d, want 8 and 2", raw[24], raw[25])
	}
	img, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	// Uniform bytes: mean 127.5, population std 255/sqrt(12) ≈ 73.6.
	var sum, sq float64
	n := 0
	for y := range 64 {
		for x := range 64 {
			r, g, b, a := img.At(x, y).RGBA()
			if a != 0xffff {
				t.Fatalf("pixel (%d,%d) not opaque", x, y)
			}
			for _, v := range []uint32{r >> 8, g >> 8, b >> 8} {
				sum += float64(v)
				sq += float64(v) * float64(v)
				n++
			}
		}
	}
	mean := sum / float64(n)
	std := math.Sqrt(sq/float64(n) - mean*mean)
	if math.Abs(mean-127.5) > 4 || math.Abs(std-73.6) > 3 {
		t.Fatalf("pixel mean %.1f std %.1f, want ≈127.5 and ≈73.6", mean, std)
	}
}

func TestImageRandomFormatAndSpread(t *testing.T) {
	c := ImageConfig{WidthMean: 12, WidthStddev: 3, HeightMean: 6, HeightStddev: 0, Format: ImageRandom, BatchSize: 1}
	rng := seeded(3)
	counts := map[string]int{}
	var sumW float64
	const n = 200
	for range n {
		s, err := c.generate(rng)
		if err != nil {
			t.Fatal(err)
		}
		format, raw := decodeImageURL(t, s)
		ic, decoded, err := image.DecodeConfig(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if decoded != format {
			t.Fatalf("URL says %s, bytes are %s", format, decoded)
		}
		if ic.Height != 6 || ic.Width < 1 {
			t.Fatalf("size %dx%d, want height 6 and width ≥ 1", ic.Width, ic.Height)
		}
		counts[format]++
		sumW += float64(ic.Width)
	}
	if counts["png"] < n/4 || counts["jpeg"] < n/4 || len(counts) != 2 {
		t.Fatalf("formats %v, want png and jpeg about half each", counts)
	}
	// ceil of N(12, 3) has mean ≈ 12.5; the standard error of 200 draws is 0.21.
	if mean := sumW / n; math.Abs(mean-12.5) > 1 {
		t.Fatalf("mean width %.2f, want ≈ 12.5", mean)
	}
}
