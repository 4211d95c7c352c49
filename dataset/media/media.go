// Package media synthesises the multimodal inputs of a turn (reference §4.5):
// random-noise images encoded as PNG or JPEG data URLs, Gaussian-noise audio
// encoded as WAV (or MP3 through ffmpeg) in AIPerf's "<format>,<base64>"
// form, and short synthetic videos encoded by ffmpeg into WebM or MP4 data
// URLs. Everything is drawn from a caller-supplied *rand.Rand, so the same
// generator state gives byte-identical output.
//
// The strings it returns go into chat content parts as the reference's §6.2
// shows: an image into {"type":"image_url","image_url":{"url":s}}, an audio
// string split at its first comma into
// {"type":"input_audio","input_audio":{"data":b64,"format":fmt}}, and a video
// into {"type":"video_url","video_url":{"url":s}}.
package media

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
)

// ErrNoFFmpeg is wrapped by the error New returns when the configuration
// needs ffmpeg (video, or MP3 audio) and no ffmpeg executable can be found.
var ErrNoFFmpeg = errors.New("ffmpeg not found")

// Config holds the settings of every modality. A modality whose sub-config
// is the zero value is disabled; DefaultConfig gives AIPerf's CLI defaults,
// under which every modality is disabled until its size is set.
type Config struct {
	Image ImageConfig
	Audio AudioConfig
	Video VideoConfig
	// FFmpeg is the ffmpeg executable used for video and MP3 audio: a path,
	// or a name looked up on PATH. "" means "ffmpeg" on PATH. It is looked
	// up only when an enabled modality needs it.
	FFmpeg string
}

// DefaultConfig returns AIPerf's defaults (reference §12): image batch 1,
// png; audio batch 1, wav, 16 kHz, 16 bit, mono; video batch 1, 4 fps, 5 s,
// moving_shapes, libvpx-vp9, webm, no audio track. Sizes and lengths are 0,
// so nothing is generated until they are set.
func DefaultConfig() Config {
	return Config{
		Image: ImageConfig{Format: ImagePNG, BatchSize: 1},
		Audio: AudioConfig{
			Format:      AudioWAV,
			SampleRates: []float64{16},
			Depths:      []int{16},
			NumChannels: 1,
			BatchSize:   1,
		},
		Video: VideoConfig{
			FPS:       4,
			Duration:  5,
			SynthType: SynthMovingShapes,
			Codec:     "libvpx-vp9",
			Format:    VideoWebM,
			BatchSize: 1,
		},
	}
}

// Generator synthesises the media of turns. It is immutable after New and
// safe for concurrent use, provided each goroutine passes its own rng.
type Generator struct {
	image  ImageConfig
	audio  AudioConfig
	video  VideoConfig
	ffmpeg string // resolved path; "" when no enabled modality needs it
}

// New validates cfg and returns a Generator. Every error names the flag at
// fault, e.g. "--audio-depths 12: want 8, 16, 24 or 32". Every field of an
// enabled modality is checked; a disabled one only for negative values and
// AIPerf's rule against sizes given to a modality left off. When video or MP3
// audio is enabled, New also resolves the ffmpeg executable and fails with an
// error wrapping ErrNoFFmpeg if there is none, so a run refuses to start
// rather than failing on its first turn.
func New(cfg Config) (*Generator, error) {
	if err := cfg.Image.validate(); err != nil {
		return nil, err
	}
	if err := cfg.Audio.validate(); err != nil {
		return nil, err
	}
	if err := cfg.Video.validate(); err != nil {
		return nil, err
	}
	g := &Generator{image: cfg.Image, audio: cfg.Audio, video: cfg.Video}
	if g.video.Enabled() {
		bin, err := lookFFmpeg(cfg.FFmpeg)
		if err != nil {
			return nil, fmt.Errorf("video synthesis needs ffmpeg on PATH (apt-get install ffmpeg), "+
				"or leave --video-width/--video-height unset: %w", err)
		}
		g.ffmpeg = bin
	}
	if g.audio.Enabled() && g.audio.mayEncodeMP3() && g.ffmpeg == "" {
		bin, err := lookFFmpeg(cfg.FFmpeg)
		if err != nil {
			return nil, fmt.Errorf("--audio-format %s needs ffmpeg on PATH (apt-get install ffmpeg), "+
				"or use --audio-format wav: %w", g.audio.Format, err)
		}
		g.ffmpeg = bin
	}
	return g, nil
}

// Turn synthesises one turn's media: BatchSize items of each enabled
// modality, nil slices for disabled ones. It draws exactly six values from
// rng whatever the configuration, seeding one independent stream per
// modality, so enabling images does not shift the audio a seed gives, and a
// caller sharing rng with other draws sees the same consumption every turn.
// Video and MP3 run ffmpeg, which ctx can cancel; Turn blocks until done.
// Their bytes are reproducible for a given ffmpeg build (encoders and
// muxers run in bitexact mode), not across ffmpeg or libvpx versions.
func (g *Generator) Turn(ctx context.Context, rng *rand.Rand) (images, audios, videos []string, err error) {
	imageRand, audioRand, videoRand := childRand(rng), childRand(rng), childRand(rng)
	if g.image.Enabled() {
		images = make([]string, g.image.BatchSize)
		for i := range images {
			if images[i], err = g.image.generate(imageRand); err != nil {
				return nil, nil, nil, fmt.Errorf("image: %w", err)
			}
		}
	}
	if g.audio.Enabled() {
		audios = make([]string, g.audio.BatchSize)
		for i := range audios {
			if audios[i], err = g.audio.generate(ctx, audioRand, g.ffmpeg); err != nil {
				return nil, nil, nil, fmt.Errorf("audio: %w", err)
			}
		}
	}
	if g.video.Enabled() {
		videos = make([]string, g.video.BatchSize)
		for i := range videos {
			if videos[i], err = g.video.generate(ctx, videoRand, g.ffmpeg); err != nil {
				return nil, nil, nil, fmt.Errorf("video: %w", err)
			}
		}
	}
	return images, audios, videos, nil
}

// childRand returns a generator seeded by two draws from rng.
func childRand(rng *rand.Rand) *rand.Rand {
	return rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))
}

// fillRandom fills b with uniformly random bytes, eight per draw.
func fillRandom(rng *rand.Rand, b []byte) {
	for len(b) >= 8 {
		v := rng.Uint64()
		b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		b[4], b[5], b[6], b[7] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
		b = b[8:]
	}
	if len(b) > 0 {
		v := rng.Uint64()
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
	}
}

// flagError is the error of a flag whose value is out of its domain.
func flagError(flag string, value any, want string) error {
	return fmt.Errorf("%s %v: want %s", flag, value, want)
}

// formatFloat writes v as the shortest decimal that reads back as v.
func formatFloat(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}
