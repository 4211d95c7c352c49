package media

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Audio formats accepted by AudioConfig.Format (--audio-format).
const (
	AudioWAV    = "wav"
	AudioMP3    = "mp3"
	AudioRandom = "random" // wav or mp3, drawn per clip (as --image-format random draws)
)

// Audio synthesis constants from AIPerf's generator.
const (
	minAudioLength = 0.01 // seconds; shorter draws are raised to this
	noiseStddev    = 0.3  // the signal is N(0, 0.3) clipped to [-1, 1]
	maxSampleRate  = 1_000_000
)

// mp3Rates are the sample rates (Hz) of MPEG-1, 2 and 2.5 Layer III, the
// only ones AIPerf accepts for --audio-format mp3.
var mp3Rates = []int{8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000}

// AudioConfig sets the synthetic audio (--audio-*). Audio is enabled when
// LengthMean and BatchSize are > 0. Each clip is Gaussian noise N(0, 0.3)
// clipped to [-1, 1] and scaled to the integer range of its bit depth.
type AudioConfig struct {
	// LengthMean and LengthStddev (seconds) give each clip's length as
	// max(0.01, N(mean, stddev)). LengthMean, when > 0, must be ≥ 0.01.
	LengthMean, LengthStddev float64
	// Format is AudioWAV (PCM), AudioMP3 (encoded by ffmpeg's libmp3lame)
	// or AudioRandom (each clip's format drawn, uniformly, before the rest
	// of the clip).
	Format string
	// SampleRates (kHz) and Depths (bits: 8, 16, 24 or 32) are the choices
	// drawn from, uniformly, for each clip. MP3 allows only the MPEG rates
	// 8, 11.025, 12, 16, 22.05, 24, 32, 44.1 and 48 kHz.
	SampleRates []float64
	Depths      []int
	// NumChannels is 1 (mono) or 2 (stereo).
	NumChannels int
	// BatchSize is the number of clips per turn (--audio-batch-size).
	BatchSize int
}

// Enabled reports whether the config produces audio.
func (c AudioConfig) Enabled() bool {
	return c.LengthMean > 0 && c.BatchSize > 0
}

func (c AudioConfig) validate() error {
	if err := checkNonNegative("--audio-length-mean", c.LengthMean); err != nil {
		return err
	}
	if err := checkNonNegative("--audio-length-stddev", c.LengthStddev); err != nil {
		return err
	}
	if c.BatchSize < 0 {
		return flagError("--audio-batch-size", c.BatchSize, "≥ 0")
	}
	if !c.Enabled() {
		if c.LengthMean != 0 || c.LengthStddev != 0 {
			return errors.New("audio generation is disabled but audio length options were provided: " +
				"set --audio-batch-size > 0 and --audio-length-mean > 0 to enable it")
		}
		return nil
	}
	if c.LengthMean < minAudioLength {
		return flagError("--audio-length-mean", c.LengthMean, "0 (off) or ≥ 0.01 seconds")
	}
	if c.Format != AudioWAV && c.Format != AudioMP3 && c.Format != AudioRandom {
		return flagError("--audio-format", quoted(c.Format), "wav, mp3 or random")
	}
	if len(c.SampleRates) == 0 {
		return errors.New("--audio-sample-rates: want at least one rate (kHz)")
	}
	for _, khz := range c.SampleRates {
		hz, ok := sampleRateHz(khz)
		if !ok {
			return flagError("--audio-sample-rates", khz, "a rate in (0, 1000] kHz")
		}
		if c.mayEncodeMP3() && !slices.Contains(mp3Rates, hz) {
			return flagError("--audio-sample-rates", khz,
				"one of 8, 11.025, 12, 16, 22.05, 24, 32, 44.1 or 48 kHz with --audio-format "+c.Format)
		}
	}
	if len(c.Depths) == 0 {
		return errors.New("--audio-depths: want at least one bit depth")
	}
	for _, d := range c.Depths {
		if d != 8 && d != 16 && d != 24 && d != 32 {
			return flagError("--audio-depths", d, "8, 16, 24 or 32")
		}
	}
	if c.NumChannels != 1 && c.NumChannels != 2 {
		return flagError("--audio-num-channels", c.NumChannels, "1 or 2")
	}
	return nil
}

// sampleRateHz converts a rate in kHz to whole Hz, reporting whether it is
// in (0, maxSampleRate]. It rounds where AIPerf truncates, so that a rate
// like 44.1 cannot become 44099 through floating-point error.
func sampleRateHz(khz float64) (int, bool) {
	if !(khz > 0) || math.IsInf(khz, 0) {
		return 0, false
	}
	hz := math.Round(khz * 1000)
	if hz < 1 || hz > maxSampleRate {
		return 0, false
	}
	return int(hz), true
}

// mayEncodeMP3 reports whether some clips are MP3 (which needs ffmpeg and
// an MPEG sample rate).
func (c AudioConfig) mayEncodeMP3() bool { return c.Format == AudioMP3 || c.Format == AudioRandom }

// generate draws one clip: its format (when random), length, sample rate,
// depth, then the samples in interleaved order, and returns
// "<format>,<base64>".
func (c AudioConfig) generate(ctx context.Context, rng *rand.Rand, ffmpeg string) (string, error) {
	format := c.Format
	if format == AudioRandom {
		format = [...]string{AudioWAV, AudioMP3}[rng.IntN(2)]
	}
	length := c.LengthMean
	if c.LengthStddev > 0 {
		length = rng.NormFloat64()*c.LengthStddev + c.LengthMean
	}
	length = max(minAudioLength, length)
	hz, _ := sampleRateHz(c.SampleRates[rng.IntN(len(c.SampleRates))])
	depth := c.Depths[rng.IntN(len(c.Depths))]
	frames := int(length * float64(hz)) // AIPerf: int(audio_length * sampling_rate_hz)

	data := noiseWAV(rng, frames, c.NumChannels, hz, depth)
	if format == AudioMP3 {
		var err error
		if data, err = encodeMP3(ctx, ffmpeg, data); err != nil {
			return "", err
		}
	}
	return format + "," + base64.StdEncoding.EncodeToString(data), nil
}

// wavHeaderSize is the size of the canonical RIFF/WAVE PCM header.
const wavHeaderSize = 44

// noiseWAV returns a PCM WAV file of frames×channels noise samples at hz and
// depth bits. 8-bit samples are unsigned, as WAV requires; wider ones are
// signed little-endian.
func noiseWAV(rng *rand.Rand, frames, channels, hz, depth int) []byte {
	width := depth / 8
	dataSize := frames * channels * width
	b := make([]byte, wavHeaderSize+dataSize)
	le := binary.LittleEndian
	copy(b[0:], "RIFF")
	le.PutUint32(b[4:], uint32(wavHeaderSize-8+dataSize))
	copy(b[8:], "WAVEfmt ")
	le.PutUint32(b[16:], 16)                        // fmt chunk size
	le.PutUint16(b[20:], 1)                         // WAVE_FORMAT_PCM
	le.PutUint16(b[22:], uint16(channels))          //
	le.PutUint32(b[24:], uint32(hz))                // sample rate
	le.PutUint32(b[28:], uint32(hz*channels*width)) // byte rate
	le.PutUint16(b[32:], uint16(channels*width))    // block align
	le.PutUint16(b[34:], uint16(depth))             // bits per sample
	copy(b[36:], "data")
	le.PutUint32(b[40:], uint32(dataSize))

	p := b[wavHeaderSize:]
	for i := 0; i < len(p); i += width {
		v := quantize(math.Max(-1, math.Min(1, rng.NormFloat64()*noiseStddev)), depth)
		switch depth {
		case 8:
			p[i] = byte(v + 128)
		case 16:
			le.PutUint16(p[i:], uint16(int16(v)))
		case 24:
			u := uint32(v)
			p[i], p[i+1], p[i+2] = byte(u), byte(u>>8), byte(u>>16)
		case 32:
			le.PutUint32(p[i:], uint32(v))
		}
	}
	return b
}

// quantize scales x in [-1, 1] to a signed sample of depth bits, truncating
// toward zero like numpy's astype. 8-bit follows AIPerf's path through
// libsndfile: x is scaled to 16 bits, then the high byte is kept.
func quantize(x float64, depth int) int32 {
	if depth == 8 {
		return int32(int16(x*math.MaxInt16)) >> 8
	}
	return int32(x * float64(int64(1)<<(depth-1)-1))
}

// encodeMP3 has ffmpeg's libmp3lame encode a WAV file into bare MP3 frames
// (no ID3 tag, no Xing frame), reading and writing through pipes.
func encodeMP3(ctx context.Context, ffmpeg string, wav []byte) ([]byte, error) {
	args := []string{
		"-f", "wav", "-i", "pipe:0",
		"-c:a", "libmp3lame",
		"-fflags", "+bitexact", "-flags:a", "+bitexact",
		"-write_xing", "0", "-id3v2_version", "0",
		"-f", "mp3", "pipe:1",
	}
	out, err := runFFmpeg(ctx, ffmpeg, args, bytes.NewReader(wav))
	if err != nil {
		return nil, fmt.Errorf("mp3 encoding: %w", err)
	}
	if len(out) == 0 {
		return nil, errors.New("mp3 encoding: ffmpeg produced no output")
	}
	return out, nil
}
