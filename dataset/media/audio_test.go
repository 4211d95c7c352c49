package media

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// wavInfo is what a test reads back from a WAV file.
type wavInfo struct {
	channels, rate, bits int
	samples              []int64 // signed, interleaved; 8-bit re-centred on 0
}

// parseWAV reads a canonical 44-byte-header PCM WAV file and checks the
// sizes and derived fields of its header.
func parseWAV(t *testing.T, b []byte) wavInfo {
	t.Helper()
	le := binary.LittleEndian
	if len(b) < 44 || string(b[0:4]) != "RIFF" || string(b[8:16]) != "WAVEfmt " || string(b[36:40]) != "data" {
		t.Fatalf("not a canonical WAV header: % x", b[:min(len(b), 44)])
	}
	if got := int(le.Uint32(b[4:])); got != len(b)-8 {
		t.Fatalf("RIFF size %d, want %d", got, len(b)-8)
	}
	if le.Uint32(b[16:]) != 16 || le.Uint16(b[20:]) != 1 {
		t.Fatalf("fmt chunk size %d format %d, want 16 and 1 (PCM)", le.Uint32(b[16:]), le.Uint16(b[20:]))
	}
	w := wavInfo{channels: int(le.Uint16(b[22:])), rate: int(le.Uint32(b[24:])), bits: int(le.Uint16(b[34:]))}
	width := w.bits / 8
	if got := int(le.Uint32(b[28:])); got != w.rate*w.channels*width {
		t.Fatalf("byte rate %d, want %d", got, w.rate*w.channels*width)
	}
	if got := int(le.Uint16(b[32:])); got != w.channels*width {
		t.Fatalf("block align %d, want %d", got, w.channels*width)
	}
	data := b[44:]
	if got := int(le.Uint32(b[40:])); got != len(data) || got%(w.channels*width) != 0 {
		t.Fatalf("data size %d, file has %d bytes of data", got, len(data))
	}
	for i := 0; i < len(data); i += width {
		var v int64
		switch w.bits {
		case 8:
			v = int64(data[i]) - 128
		case 16:
			v = int64(int16(le.Uint16(data[i:])))
		case 24:
			v = int64(int32(uint32(data[i])<<8|uint32(data[i+1])<<16|uint32(data[i+2])<<24) >> 8)
		case 32:
			v = int64(int32(le.Uint32(data[i:])))
		}
		w.samples = append(w.samples, v)
	}
	return w
}

// decodeAudio splits "<format>,<base64>".
func decodeAudio(t *testing.T, s string) (string, []byte) {
	t.Helper()
	format, b64, ok := strings.Cut(s, ",")
	if !ok {
		t.Fatalf("no comma in audio string %.30q", s)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	return format, raw
}

func TestAudioWAV(t *testing.T) {
	tests := []struct {
		rate       float64
		depth      int
		channels   int
		length     float64
		wantRate   int
		wantFrames int   // int(length × rate), hand-computed
		maxAbs     int64 // the integer range of the depth
		wantStd    float64
	}{
		{16, 16, 1, 0.25, 16000, 4000, 32767, 0.3 * 32767},
		{16, 16, 2, 0.25, 16000, 4000, 32767, 0.3 * 32767},
		{44.1, 8, 1, 0.1, 44100, 4410, 128, 0.3 * 128},
		{8, 24, 2, 0.5, 8000, 4000, 8388607, 0.3 * 8388607},
		{48, 32, 1, 0.1, 48000, 4800, 2147483647, 0.3 * 2147483647},
		{22.05, 16, 2, 0.2, 22050, 4410, 32767, 0.3 * 32767},
	}
	for _, tt := range tests {
		name := strconv.FormatFloat(tt.rate, 'f', -1, 64) + "kHz-" + strconv.Itoa(tt.depth) + "bit-" + strconv.Itoa(tt.channels) + "ch"
		t.Run(name, func(t *testing.T) {
			c := AudioConfig{LengthMean: tt.length, Format: AudioWAV, SampleRates: []float64{tt.rate},
				Depths: []int{tt.depth}, NumChannels: tt.channels, BatchSize: 1}
			s, err := c.generate(context.Background(), seeded(4), "")
			if err != nil {
				t.Fatal(err)
			}
			format, raw := decodeAudio(t, s)
			if format != "wav" {
				t.Fatalf("format %q, want wav", format)
			}
			w := parseWAV(t, raw)
			if w.channels != tt.channels || w.rate != tt.wantRate || w.bits != tt.depth {
				t.Fatalf("header %d ch %d Hz %d bit, want %d, %d, %d", w.channels, w.rate, w.bits, tt.channels, tt.wantRate, tt.depth)
			}
			if len(w.samples) != tt.wantFrames*tt.channels {
				t.Fatalf("%d samples, want %d", len(w.samples), tt.wantFrames*tt.channels)
			}
			var sum, sq float64
			for _, v := range w.samples {
				if v > tt.maxAbs || v < -tt.maxAbs {
					t.Fatalf("sample %d outside ±%d", v, tt.maxAbs)
				}
				sum += float64(v)
				sq += float64(v) * float64(v)
			}
			n := float64(len(w.samples))
			mean := sum / n
			std := math.Sqrt(sq/n - mean*mean)
			if math.Abs(std-tt.wantStd) > 0.05*tt.wantStd || math.Abs(mean) > 0.1*tt.wantStd {
				t.Fatalf("sample mean %.1f std %.1f, want ≈0 and ≈%.1f (N(0, 0.3) scaled)", mean, std, tt.wantStd)
			}
		})
	}
}

func TestAudioLengthFloorAndChoices(t *testing.T) {
	c := AudioConfig{LengthMean: 0.02, LengthStddev: 0.05, Format: AudioWAV,
		SampleRates: []float64{8, 16}, Depths: []int{8, 16}, NumChannels: 1, BatchSize: 1}
	rng := seeded(5)
	seen := map[[2]int]int{}
	floor := 0
	for range 80 {
		s, err := c.generate(context.Background(), rng, "")
		if err != nil {
			t.Fatal(err)
		}
		_, raw := decodeAudio(t, s)
		w := parseWAV(t, raw)
		seen[[2]int{w.rate, w.bits}]++
		// The shortest clip is 0.01 s: int(0.01 × rate) frames.
		minFrames := w.rate / 100
		if len(w.samples) < minFrames {
			t.Fatalf("%d frames at %d Hz, below the 0.01 s floor", len(w.samples), w.rate)
		}
		if len(w.samples) == minFrames {
			floor++
		}
	}
	if len(seen) != 4 {
		t.Fatalf("rate×depth combinations %v, want all four of {8000,16000}×{8,16}", seen)
	}
	// P(N(0.02, 0.05) < 0.01) ≈ 0.42, so about 34 of 80 clips sit on the floor.
	if floor < 15 || floor > 55 {
		t.Fatalf("%d of 80 clips at the 0.01 s floor, want about 34", floor)
	}
}

// mp3Frame is one parsed MPEG audio frame header.
type mp3Frame struct {
	rate, samples, size int
	mono                bool
}

// parseMP3Header decodes the 4-byte MPEG audio frame header at b, reporting
// false when b does not start with a valid Layer III header.
func parseMP3Header(b []byte) (mp3Frame, bool) {
	if len(b) < 4 || b[0] != 0xff || b[1]&0xe0 != 0xe0 {
		return mp3Frame{}, false
	}
	version := (b[1] >> 3) & 3 // 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5
	layer := (b[1] >> 1) & 3   // 1 Layer III
	brIndex, srIndex, pad := b[2]>>4, (b[2]>>2)&3, int(b[2]>>1)&1
	if version == 1 || layer != 1 || brIndex == 0 || brIndex == 15 || srIndex == 3 {
		return mp3Frame{}, false
	}
	rates := map[byte][3]int{3: {44100, 48000, 32000}, 2: {22050, 24000, 16000}, 0: {11025, 12000, 8000}}
	f := mp3Frame{rate: rates[version][srIndex], mono: b[3]>>6 == 3}
	if version == 3 {
		kbps := [...]int{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320}[brIndex]
		f.samples, f.size = 1152, 144*kbps*1000/f.rate+pad
	} else {
		kbps := [...]int{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160}[brIndex]
		f.samples, f.size = 576, 72*kbps*1000/f.rate+pad
	}
	return f, true
}

func TestAudioMP3(t *testing.T) {
	needFFmpeg(t)
	tests := []struct {
		rate     float64
		channels int
		depth    int
		wantRate int
	}{
		{8, 1, 16, 8000}, {11.025, 1, 16, 11025}, {12, 2, 8, 12000},
		{16, 1, 16, 16000}, {22.05, 2, 24, 22050}, {24, 1, 32, 24000},
		{32, 1, 16, 32000}, {44.1, 2, 16, 44100}, {48, 1, 16, 48000},
	}
	ffmpeg, err := lookFFmpeg("")
	if err != nil {
		t.Fatal(err)
	}
	const length = 0.3
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.wantRate), func(t *testing.T) {
			t.Parallel()
			c := AudioConfig{LengthMean: length, Format: AudioMP3, SampleRates: []float64{tt.rate},
				Depths: []int{tt.depth}, NumChannels: tt.channels, BatchSize: 1}
			s, err := c.generate(context.Background(), seeded(6), ffmpeg)
			if err != nil {
				t.Fatal(err)
			}
			format, raw := decodeAudio(t, s)
			if format != "mp3" {
				t.Fatalf("format %q, want mp3", format)
			}
			// The file is bare Layer III frames, each at the drawn rate,
			// tiling it exactly.
			samples, frames := 0, 0
			for off := 0; off < len(raw); {
				f, ok := parseMP3Header(raw[off:])
				if !ok {
					t.Fatalf("no Layer III frame header at byte %d of %d: % x", off, len(raw), raw[off:min(off+4, len(raw))])
				}
				if f.rate != tt.wantRate || f.mono != (tt.channels == 1) {
					t.Fatalf("frame %d: %d Hz mono=%v, want %d Hz mono=%v", frames, f.rate, f.mono, tt.wantRate, tt.channels == 1)
				}
				off += f.size
				samples += f.samples
				frames++
			}
			// LAME pads with its encoder delay and a final partial frame,
			// so the frames hold at least the clip and at most 3 frames more.
			want := int(length * float64(tt.wantRate))
			perFrame := samples / frames
			if samples < want || samples > want+3*perFrame {
				t.Fatalf("%d frames hold %d samples, want %d to %d", frames, samples, want, want+3*perFrame)
			}
			probeAudio(t, raw, tt.wantRate, tt.channels)
		})
	}
}

// probeAudio checks an encoded clip's stream with ffprobe, when present.
func probeAudio(t *testing.T, raw []byte, rate, channels int) {
	t.Helper()
	if _, err := exec.LookPath("ffprobe"); err != nil {
		return
	}
	path := filepath.Join(t.TempDir(), "clip.mp3")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels",
		"-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	var probe struct {
		Streams []struct {
			CodecName  string `json:"codec_name"`
			SampleRate string `json:"sample_rate"`
			Channels   int    `json:"channels"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(out, &probe); err != nil {
		t.Fatal(err)
	}
	if len(probe.Streams) != 1 {
		t.Fatalf("ffprobe streams %+v, want one", probe.Streams)
	}
	s := probe.Streams[0]
	if s.CodecName != "mp3" || s.SampleRate != strconv.Itoa(rate) || s.Channels != channels {
		t.Fatalf("ffprobe %+v, want mp3 %d Hz %d ch", s, rate, channels)
	}
}

func TestAudioMP3Deterministic(t *testing.T) {
	needFFmpeg(t)
	cfg := Config{Audio: AudioConfig{LengthMean: 0.2, Format: AudioMP3, SampleRates: []float64{16},
		Depths: []int{16}, NumChannels: 1, BatchSize: 1}}
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, a1, _, err := g.Turn(context.Background(), seeded(9))
	if err != nil {
		t.Fatal(err)
	}
	_, a2, _, err := g.Turn(context.Background(), seeded(9))
	if err != nil {
		t.Fatal(err)
	}
	if a1[0] != a2[0] {
		t.Fatal("the same seed gave different MP3 bytes")
	}
}

// TestAudioRandomFormat: --audio-format random draws wav or mp3 per clip
// from the seed, so a batch mixes both, each clip a valid file of its
// format, and the same seed draws the same formats.
func TestAudioRandomFormat(t *testing.T) {
	needFFmpeg(t)
	cfg := Config{Audio: AudioConfig{LengthMean: 0.05, Format: AudioRandom, SampleRates: []float64{16},
		Depths: []int{16}, NumChannels: 1, BatchSize: 16}}
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	formats := func() []string {
		_, clips, _, err := g.Turn(context.Background(), seeded(4))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range clips {
			format, raw := decodeAudio(t, c)
			switch format {
			case AudioWAV:
				if string(raw[:4]) != "RIFF" {
					t.Fatalf("wav clip starts % x", raw[:4])
				}
			case AudioMP3:
				if _, ok := parseMP3Header(raw); !ok {
					t.Fatalf("mp3 clip starts % x", raw[:4])
				}
			default:
				t.Fatalf("format %q", format)
			}
			out = append(out, format)
		}
		return out
	}
	first := formats()
	if !slices.Contains(first, AudioWAV) || !slices.Contains(first, AudioMP3) {
		t.Fatalf("16 clips drew only %v", first)
	}
	if again := formats(); !slices.Equal(first, again) {
		t.Fatalf("the same seed drew %v, then %v", first, again)
	}
}
