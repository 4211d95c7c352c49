package media

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// Video containers accepted by VideoConfig.Format (--video-format).
const (
	VideoWebM = "webm"
	VideoMP4  = "mp4"
)

// videoAudioRate is the sample rate (Hz) of a video's audio track, AIPerf's
// --video-audio-sample-rate default; its samples are 16-bit.
const videoAudioRate = 44100

// videoAudioCodecs is AIPerf's automatic audio codec per container.
var videoAudioCodecs = map[string]string{VideoWebM: "libvorbis", VideoMP4: "aac"}

// VideoConfig sets the synthetic videos (--video-*). Video is enabled when
// Width, Height and BatchSize are > 0. Frames are drawn in Go and encoded by
// ffmpeg.
type VideoConfig struct {
	// Width and Height are the frame size in pixels; set both or neither.
	Width, Height int
	// FPS (> 0) and Duration (seconds) give int(Duration×FPS) frames, which
	// must be at least one.
	FPS, Duration float64
	// SynthType is SynthMovingShapes, SynthGridClock or SynthNoise.
	SynthType string
	// Codec is any ffmpeg video encoder name, e.g. libvpx-vp9 or libx264.
	Codec string
	// Format is VideoWebM or VideoMP4.
	Format string
	// AudioChannels adds a Gaussian-noise audio track of 1 or 2 channels at
	// 44.1 kHz (libvorbis in WebM, aac in MP4); 0 means none.
	AudioChannels int
	// BatchSize is the number of videos per turn (--video-batch-size).
	BatchSize int
}

// Enabled reports whether the config produces videos.
func (c VideoConfig) Enabled() bool {
	return c.Width > 0 && c.Height > 0 && c.BatchSize > 0
}

// frames is the number of frames of a clip, AIPerf's int(duration × fps).
func (c VideoConfig) frames() int {
	return int(c.Duration * c.FPS)
}

func (c VideoConfig) validate() error {
	if c.Width < 0 {
		return flagError("--video-width", c.Width, "≥ 1, or unset")
	}
	if c.Height < 0 {
		return flagError("--video-height", c.Height, "≥ 1, or unset")
	}
	if c.Width > 0 && c.Height == 0 {
		return errors.New("--video-width is set but --video-height is not: set both or neither")
	}
	if c.Height > 0 && c.Width == 0 {
		return errors.New("--video-height is set but --video-width is not: set both or neither")
	}
	if c.BatchSize < 0 {
		return flagError("--video-batch-size", c.BatchSize, "≥ 0")
	}
	if !c.Enabled() {
		return nil
	}
	if !(c.FPS > 0) || math.IsInf(c.FPS, 0) {
		return flagError("--video-fps", c.FPS, "a finite number > 0")
	}
	if err := checkNonNegative("--video-duration", c.Duration); err != nil {
		return err
	}
	if c.frames() < 1 {
		return fmt.Errorf("--video-duration %s × --video-fps %s gives no frame: want a product ≥ 1",
			formatFloat(c.Duration), formatFloat(c.FPS))
	}
	switch c.SynthType {
	case SynthMovingShapes, SynthGridClock, SynthNoise:
	default:
		return flagError("--video-synth-type", quoted(c.SynthType), "moving_shapes, grid_clock or noise")
	}
	if c.Codec == "" {
		return flagError("--video-codec", quoted(c.Codec), "an ffmpeg video encoder such as libvpx-vp9")
	}
	if c.Format != VideoWebM && c.Format != VideoMP4 {
		return flagError("--video-format", quoted(c.Format), "webm or mp4")
	}
	if c.AudioChannels < 0 || c.AudioChannels > 2 {
		return flagError("--video-audio-num-channels", c.AudioChannels, "0 (none), 1 or 2")
	}
	return nil
}

// generate encodes one clip and returns it as a data URL. The audio track's
// samples are drawn first, then the frames (noise frames only draw).
func (c VideoConfig) generate(ctx context.Context, rng *rand.Rand, ffmpeg string) (string, error) {
	dir, err := os.MkdirTemp("", "aiperf-video-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)

	args := []string{
		"-f", "rawvideo", "-pix_fmt", "rgb24",
		"-s", fmt.Sprintf("%dx%d", c.Width, c.Height),
		"-r", formatFloat(c.FPS),
		"-i", "pipe:0",
	}
	if c.AudioChannels > 0 {
		wav := noiseWAV(rng, int(c.Duration*videoAudioRate), c.AudioChannels, videoAudioRate, 16)
		path := filepath.Join(dir, "audio.wav")
		if err := os.WriteFile(path, wav, 0o600); err != nil {
			return "", err
		}
		args = append(args, "-i", path, "-map", "0:v", "-map", "1:a",
			"-c:a", videoAudioCodecs[c.Format], "-shortest", "-flags:a", "+bitexact")
	}
	args = append(args, "-c:v", c.Codec, "-pix_fmt", "yuv420p")
	if c.Format == VideoMP4 {
		args = append(args, "-movflags", "+faststart")
	}
	out := filepath.Join(dir, "out."+c.Format)
	// bitexact keeps version strings, creation times and random container
	// UIDs out of the file, so a seed gives the same bytes on every run.
	args = append(args, "-fflags", "+bitexact", "-flags:v", "+bitexact", "-f", c.Format, "-y", out)

	total := c.frames()
	frames := newFrameReader(c.Width, c.Height, total, newPainter(c.SynthType, c.Width, c.Height, total, rng))
	if _, err := runFFmpeg(ctx, ffmpeg, args, frames); err != nil {
		return "", fmt.Errorf("%s %s %dx%d at %s fps: %w", c.Format, c.Codec, c.Width, c.Height, formatFloat(c.FPS), err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return "", err
	}
	if len(data) == 0 {
		return "", errors.New("ffmpeg produced no output")
	}
	return "data:video/" + c.Format + ";base64," + base64.StdEncoding.EncodeToString(data), nil
}
