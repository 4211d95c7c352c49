package media

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"

	"github.com/aiperf-go/aiperf/dataset"
)

// Image formats accepted by ImageConfig.Format (--image-format).
const (
	ImagePNG    = "png"
	ImageJPEG   = "jpeg"
	ImageRandom = "random" // png or jpeg, drawn per image
)

// jpegQuality is Pillow's default, which AIPerf's encoder uses.
const jpegQuality = 75

// ImageConfig sets the synthetic images (--image-*). Images are enabled when
// both means and BatchSize are > 0. Pixels are uniform random noise, AIPerf's
// --image-source noise.
type ImageConfig struct {
	// WidthMean, WidthStddev, HeightMean and HeightStddev (pixels) give each
	// dimension as dataset.SamplePositiveNormalInt(mean, stddev), at least 1.
	WidthMean, WidthStddev   float64
	HeightMean, HeightStddev float64
	// Format is ImagePNG, ImageJPEG or ImageRandom.
	Format string
	// BatchSize is the number of images per turn (--image-batch-size).
	BatchSize int
}

// Enabled reports whether the config produces images.
func (c ImageConfig) Enabled() bool {
	return c.WidthMean > 0 && c.HeightMean > 0 && c.BatchSize > 0
}

func (c ImageConfig) validate() error {
	for _, f := range []struct {
		flag string
		v    float64
	}{
		{"--image-width-mean", c.WidthMean},
		{"--image-width-stddev", c.WidthStddev},
		{"--image-height-mean", c.HeightMean},
		{"--image-height-stddev", c.HeightStddev},
	} {
		if err := checkNonNegative(f.flag, f.v); err != nil {
			return err
		}
	}
	if c.BatchSize < 0 {
		return flagError("--image-batch-size", c.BatchSize, "≥ 0")
	}
	if !c.Enabled() {
		// AIPerf rejects sizes given while images stay off: a batch size of 0
		// is an explicit "off", anything else means a mean was forgotten.
		if c.BatchSize > 0 && (c.WidthMean != 0 || c.WidthStddev != 0 || c.HeightMean != 0 || c.HeightStddev != 0) {
			return errors.New("image generation is disabled but image dimension options were provided: " +
				"set both --image-width-mean and --image-height-mean > 0 to enable it")
		}
		return nil
	}
	switch c.Format {
	case ImagePNG, ImageJPEG, ImageRandom:
	default:
		return flagError("--image-format", quoted(c.Format), "png, jpeg or random")
	}
	return nil
}

// generate draws one image: the format (when random), the width, the height,
// then the pixels, in that order.
func (c ImageConfig) generate(rng *rand.Rand) (string, error) {
	format := c.Format
	if format == ImageRandom {
		format = [...]string{ImagePNG, ImageJPEG}[rng.IntN(2)]
	}
	w := max(1, dataset.SamplePositiveNormalInt(rng, c.WidthMean, c.WidthStddev))
	h := max(1, dataset.SamplePositiveNormalInt(rng, c.HeightMean, c.HeightStddev))
	img := noiseImage(rng, w, h)

	var buf bytes.Buffer
	buf.WriteString("data:image/" + format + ";base64,")
	enc := base64.NewEncoder(base64.StdEncoding, &buf)
	var err error
	if format == ImageJPEG {
		err = jpeg.Encode(enc, img, &jpeg.Options{Quality: jpegQuality})
	} else {
		err = png.Encode(enc, img)
	}
	if err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// noiseImage returns an opaque w×h image of uniform random RGB pixels (so
// the PNG encoder writes plain 8-bit RGB, like Pillow).
func noiseImage(rng *rand.Rand, w, h int) *image.NRGBA {
	rgb := make([]byte, w*h*3)
	fillRandom(rng, rgb)
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i, j := 0, 0; i < len(rgb); i, j = i+3, j+4 {
		img.Pix[j], img.Pix[j+1], img.Pix[j+2], img.Pix[j+3] = rgb[i], rgb[i+1], rgb[i+2], 0xff
	}
	return img
}

// checkNonNegative rejects negative, NaN and infinite values of flag.
func checkNonNegative(flag string, v float64) error {
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return flagError(flag, v, "a finite number ≥ 0")
	}
	return nil
}

// quoted shows an empty string as "" in errors.
func quoted(s string) string {
	if s == "" {
		return `""`
	}
	return s
}
