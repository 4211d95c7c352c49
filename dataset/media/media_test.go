package media

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// seeded returns a deterministic generator for tests.
func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// needFFmpeg skips the test when ffmpeg is not on PATH.
func needFFmpeg(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		if os.Getenv("AIPERF_TEST_REQUIRE_FFMPEG") != "" {
			t.Fatal("ffmpeg not on PATH: make test installs it with scripts/ffmpeg.sh")
		}
		t.Skip("ffmpeg not on PATH (apt-get install ffmpeg): skipping the ffmpeg-backed checks")
	}
}

// baseConfig enables 8×8 PNG images and 20 ms WAV audio; video stays off.
func baseConfig() Config {
	cfg := DefaultConfig()
	cfg.Image.WidthMean, cfg.Image.HeightMean = 8, 8
	cfg.Audio.LengthMean = 0.02
	return cfg
}

// videoOn enables a small video on cfg.
func videoOn(cfg *Config) {
	cfg.Video.Width, cfg.Video.Height = 32, 32
}

func TestNewValidation(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want string // "" means valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"zero config", func(c *Config) { *c = Config{} }, ""},
		{"image width mean", func(c *Config) { c.Image.WidthMean = -1 }, "--image-width-mean -1: want a finite number ≥ 0"},
		{"image width stddev", func(c *Config) { c.Image.WidthStddev = math.NaN() }, "--image-width-stddev NaN: want"},
		{"image height mean", func(c *Config) { c.Image.HeightMean = math.Inf(1) }, "--image-height-mean +Inf: want"},
		{"image height stddev", func(c *Config) { c.Image.HeightStddev = -2 }, "--image-height-stddev -2: want"},
		{"image batch", func(c *Config) { c.Image.BatchSize = -1 }, "--image-batch-size -1: want ≥ 0"},
		{"image format", func(c *Config) { c.Image.Format = "gif" }, "--image-format gif: want png, jpeg or random"},
		{"image format empty", func(c *Config) { c.Image.Format = "" }, `--image-format "": want png, jpeg or random`},
		{"image jpeg", func(c *Config) { c.Image.Format = ImageJPEG }, ""},
		{"image random", func(c *Config) { c.Image.Format = ImageRandom }, ""},
		{"image one mean only", func(c *Config) { c.Image.WidthMean = 0 }, "image generation is disabled but image dimension options were provided"},
		{"image batch 0 turns off", func(c *Config) { c.Image.BatchSize = 0; c.Image.Format = "gif" }, ""},
		{"audio length mean", func(c *Config) { c.Audio.LengthMean = -1 }, "--audio-length-mean -1: want a finite number ≥ 0"},
		{"audio length stddev", func(c *Config) { c.Audio.LengthStddev = -0.5 }, "--audio-length-stddev -0.5: want"},
		{"audio too short", func(c *Config) { c.Audio.LengthMean = 0.005 }, "--audio-length-mean 0.005: want 0 (off) or ≥ 0.01 seconds"},
		{"audio batch", func(c *Config) { c.Audio.BatchSize = -1 }, "--audio-batch-size -1: want ≥ 0"},
		{"audio off with length", func(c *Config) { c.Audio.BatchSize = 0 }, "audio generation is disabled but audio length options were provided"},
		{"audio stddev without mean", func(c *Config) { c.Audio.LengthMean = 0; c.Audio.LengthStddev = 1 }, "audio generation is disabled"},
		{"audio format", func(c *Config) { c.Audio.Format = "ogg" }, "--audio-format ogg: want wav, mp3 or random"},
		{"audio random rate", func(c *Config) { c.Audio.Format = AudioRandom; c.Audio.SampleRates = []float64{96} },
			"--audio-sample-rates 96: want one of 8, 11.025, 12, 16, 22.05, 24, 32, 44.1 or 48 kHz with --audio-format random"},
		{"audio no rates", func(c *Config) { c.Audio.SampleRates = nil }, "--audio-sample-rates: want at least one rate"},
		{"audio rate 0", func(c *Config) { c.Audio.SampleRates = []float64{16, 0} }, "--audio-sample-rates 0: want a rate in (0, 1000] kHz"},
		{"audio rate huge", func(c *Config) { c.Audio.SampleRates = []float64{2000} }, "--audio-sample-rates 2000: want"},
		{"audio wav any rate", func(c *Config) { c.Audio.SampleRates = []float64{96, 7.5} }, ""},
		{"audio mp3 rate", func(c *Config) { c.Audio.Format = AudioMP3; c.Audio.SampleRates = []float64{16, 96} },
			"--audio-sample-rates 96: want one of 8, 11.025, 12, 16, 22.05, 24, 32, 44.1 or 48 kHz with --audio-format mp3"},
		{"audio mp3 rates", func(c *Config) {
			c.Audio.Format = AudioMP3
			c.Audio.SampleRates = []float64{8, 11.025, 12, 16, 22.05, 24, 32, 44.1, 48}
		}, ""},
		{"audio no depths", func(c *Config) { c.Audio.Depths = []int{} }, "--audio-depths: want at least one bit depth"},
		{"audio depth", func(c *Config) { c.Audio.Depths = []int{16, 12} }, "--audio-depths 12: want 8, 16, 24 or 32"},
		{"audio channels 0", func(c *Config) { c.Audio.NumChannels = 0 }, "--audio-num-channels 0: want 1 or 2"},
		{"audio channels 3", func(c *Config) { c.Audio.NumChannels = 3 }, "--audio-num-channels 3: want 1 or 2"},
		{"video width", func(c *Config) { c.Video.Width = -1 }, "--video-width -1: want ≥ 1, or unset"},
		{"video height", func(c *Config) { c.Video.Height = -1 }, "--video-height -1: want ≥ 1, or unset"},
		{"video width alone", func(c *Config) { c.Video.Width = 64 }, "--video-width is set but --video-height is not"},
		{"video height alone", func(c *Config) { c.Video.Height = 64 }, "--video-height is set but --video-width is not"},
		{"video batch", func(c *Config) { c.Video.BatchSize = -1 }, "--video-batch-size -1: want ≥ 0"},
		{"video batch 0 turns off", func(c *Config) { videoOn(c); c.Video.BatchSize = 0; c.Video.Codec = "" }, ""},
		{"video fps", func(c *Config) { videoOn(c); c.Video.FPS = 0 }, "--video-fps 0: want a finite number > 0"},
		{"video fps inf", func(c *Config) { videoOn(c); c.Video.FPS = math.Inf(1) }, "--video-fps +Inf: want"},
		{"video duration", func(c *Config) { videoOn(c); c.Video.Duration = -1 }, "--video-duration -1: want a finite number ≥ 0"},
		{"video no frame", func(c *Config) { videoOn(c); c.Video.Duration = 0.2 }, "--video-duration 0.2 × --video-fps 4 gives no frame"},
		{"video synth", func(c *Config) { videoOn(c); c.Video.SynthType = "spiral" }, "--video-synth-type spiral: want moving_shapes, grid_clock or noise"},
		{"video codec", func(c *Config) { videoOn(c); c.Video.Codec = "" }, `--video-codec "": want an ffmpeg video encoder`},
		{"video format", func(c *Config) { videoOn(c); c.Video.Format = "avi" }, "--video-format avi: want webm or mp4"},
		{"video audio channels", func(c *Config) { videoOn(c); c.Video.AudioChannels = 3 }, "--video-audio-num-channels 3: want 0 (none), 1 or 2"},
		{"video audio channels negative", func(c *Config) { videoOn(c); c.Video.AudioChannels = -1 }, "--video-audio-num-channels -1"},
		{"video valid", func(c *Config) { videoOn(c); c.Video.AudioChannels = 2; c.Video.Format = VideoMP4 }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			tt.edit(&cfg)
			g, err := New(cfg)
			if tt.want == "" {
				// A valid config that needs a missing ffmpeg fails only on that.
				if err != nil && !errors.Is(err, ErrNoFFmpeg) {
					t.Fatalf("New: %v, want success", err)
				}
				if err == nil && g == nil {
					t.Fatal("New returned a nil Generator")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestNewWithoutFFmpeg(t *testing.T) {
	missing := "/nonexistent/bin/ffmpeg"
	tests := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"video", videoOn, "--video-width/--video-height"},
		{"mp3", func(c *Config) { c.Audio.Format = AudioMP3 }, "--audio-format wav"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.FFmpeg = missing
			tt.edit(&cfg)
			_, err := New(cfg)
			if !errors.Is(err, ErrNoFFmpeg) {
				t.Fatalf("New error = %v, want ErrNoFFmpeg", err)
			}
			for _, s := range []string{tt.want, "apt-get install ffmpeg"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
	// WAV audio and images never need ffmpeg.
	cfg := baseConfig()
	cfg.FFmpeg = missing
	if _, err := New(cfg); err != nil {
		t.Fatalf("New without video or mp3: %v", err)
	}
}

func TestTurnDisabledDrawsSix(t *testing.T) {
	g, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := seeded(1), seeded(1)
	images, audios, videos, err := g.Turn(context.Background(), a)
	if err != nil || images != nil || audios != nil || videos != nil {
		t.Fatalf("Turn = %v, %v, %v, %v; want nil slices", images, audios, videos, err)
	}
	for range 6 {
		b.Uint64()
	}
	if a.Uint64() != b.Uint64() {
		t.Fatal("Turn did not draw exactly six values from rng")
	}
}

func TestTurnBatchesAndDeterminism(t *testing.T) {
	cfg := baseConfig()
	cfg.Image.BatchSize, cfg.Image.Format, cfg.Image.WidthStddev = 3, ImageRandom, 2
	cfg.Audio.BatchSize, cfg.Audio.LengthStddev = 2, 0.01
	cfg.Audio.SampleRates, cfg.Audio.Depths = []float64{8, 16}, []int{8, 16, 24, 32}
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := func(seed uint64) (images, audios []string) {
		t.Helper()
		rng := seeded(seed)
		for range 3 { // the third turn, so per-turn state would show
			images, audios, _, err = g.Turn(ctx, rng)
			if err != nil {
				t.Fatal(err)
			}
		}
		return images, audios
	}
	i1, a1 := run(7)
	i2, a2 := run(7)
	if len(i1) != 3 || len(a1) != 2 {
		t.Fatalf("got %d images, %d audios; want 3 and 2", len(i1), len(a1))
	}
	if !slices.Equal(i1, i2) || !slices.Equal(a1, a2) {
		t.Fatal("the same seed gave different media")
	}
	i3, a3 := run(8)
	if slices.Equal(i1, i3) || slices.Equal(a1, a3) {
		t.Fatal("different seeds gave the same media")
	}
	if i1[0] == i1[1] {
		t.Fatal("two images of one batch are identical")
	}
}

func TestModalitiesAreIndependent(t *testing.T) {
	with := baseConfig()
	without := baseConfig()
	without.Image.BatchSize = 0
	without.Image.WidthMean, without.Image.HeightMean = 0, 0
	gWith, err := New(with)
	if err != nil {
		t.Fatal(err)
	}
	gWithout, err := New(without)
	if err != nil {
		t.Fatal(err)
	}
	_, a1, _, err := gWith.Turn(context.Background(), seeded(3))
	if err != nil {
		t.Fatal(err)
	}
	_, a2, _, err := gWithout.Turn(context.Background(), seeded(3))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a1, a2) {
		t.Fatal("turning images off changed the audio a seed gives")
	}
}
