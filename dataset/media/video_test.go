package media

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// probe is the part of ffprobe's JSON the video tests read.
type probe struct {
	Streams []struct {
		CodecType    string `json:"codec_type"`
		CodecName    string `json:"codec_name"`
		Width        int    `json:"width"`
		Height       int    `json:"height"`
		RFrameRate   string `json:"r_frame_rate"`
		NbReadFrames string `json:"nb_read_frames"`
		SampleRate   string `json:"sample_rate"`
		Channels     int    `json:"channels"`
	} `json:"streams"`
	Format struct {
		FormatName string `json:"format_name"`
	} `json:"format"`
}

// probeVideo decodes a video data URL of format and runs ffprobe on it.
func probeVideo(t *testing.T, url, format string) probe {
	t.Helper()
	b64, ok := strings.CutPrefix(url, "data:video/"+format+";base64,")
	if !ok {
		t.Fatalf("not a %s data URL: %.40q", format, url)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("ffprobe"); err != nil {
		t.Skip("ffprobe not on PATH")
	}
	path := filepath.Join(t.TempDir(), "clip."+format)
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ffprobe", "-v", "error", "-count_frames",
		"-show_entries", "stream=codec_type,codec_name,width,height,r_frame_rate,nb_read_frames,sample_rate,channels:format=format_name",
		"-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	var p probe
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVideo(t *testing.T) {
	needFFmpeg(t)
	tests := []struct {
		name       string
		cfg        VideoConfig
		wantCodec  string
		wantFormat string // ffprobe's format_name
		wantAudio  string // "" for none
		wantFrames string // int(duration × fps)
	}{
		{"webm vp9 shapes", VideoConfig{Width: 64, Height: 48, FPS: 4, Duration: 1.5, SynthType: SynthMovingShapes,
			Codec: "libvpx-vp9", Format: VideoWebM, BatchSize: 1}, "vp9", "matroska,webm", "", "6"},
		{"webm noise mono", VideoConfig{Width: 32, Height: 32, FPS: 5, Duration: 1, SynthType: SynthNoise,
			Codec: "libvpx-vp9", Format: VideoWebM, AudioChannels: 1, BatchSize: 1}, "vp9", "matroska,webm", "vorbis", "5"},
		{"mp4 h264 clock stereo", VideoConfig{Width: 64, Height: 64, FPS: 4, Duration: 1, SynthType: SynthGridClock,
			Codec: "libx264", Format: VideoMP4, AudioChannels: 2, BatchSize: 1}, "h264", "mov,mp4,m4a,3gp,3g2,mj2", "aac", "4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, err := New(Config{Video: tt.cfg})
			if err != nil {
				t.Fatal(err)
			}
			_, _, videos, err := g.Turn(context.Background(), seeded(11))
			if err != nil {
				t.Fatal(err)
			}
			if len(videos) != 1 {
				t.Fatalf("%d videos, want 1", len(videos))
			}
			p := probeVideo(t, videos[0], tt.cfg.Format)
			if p.Format.FormatName != tt.wantFormat {
				t.Errorf("container %q, want %q", p.Format.FormatName, tt.wantFormat)
			}
			var sawVideo, sawAudio bool
			for _, s := range p.Streams {
				switch s.CodecType {
				case "video":
					sawVideo = true
					wantRate := map[float64]string{4: "4/1", 5: "5/1"}[tt.cfg.FPS]
					if s.CodecName != tt.wantCodec || s.Width != tt.cfg.Width || s.Height != tt.cfg.Height ||
						s.RFrameRate != wantRate || s.NbReadFrames != tt.wantFrames {
						t.Errorf("video stream %+v, want %s %dx%d at %s with %s frames",
							s, tt.wantCodec, tt.cfg.Width, tt.cfg.Height, wantRate, tt.wantFrames)
					}
				case "audio":
					sawAudio = true
					if s.CodecName != tt.wantAudio || s.SampleRate != "44100" || s.Channels != tt.cfg.AudioChannels {
						t.Errorf("audio stream %+v, want %s 44100 Hz %d ch", s, tt.wantAudio, tt.cfg.AudioChannels)
					}
				}
			}
			if !sawVideo || sawAudio != (tt.wantAudio != "") {
				t.Errorf("streams %+v: video %v audio %v, want audio %v", p.Streams, sawVideo, sawAudio, tt.wantAudio != "")
			}
		})
	}
}

func TestVideoDeterministic(t *testing.T) {
	needFFmpeg(t)
	cfg := DefaultConfig()
	cfg.Video.Width, cfg.Video.Height, cfg.Video.Duration, cfg.Video.BatchSize = 32, 32, 1, 2
	cfg.Video.SynthType, cfg.Video.AudioChannels = SynthNoise, 1
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, _, v1, err := g.Turn(context.Background(), seeded(12))
	if err != nil {
		t.Fatal(err)
	}
	_, _, v2, err := g.Turn(context.Background(), seeded(12))
	if err != nil {
		t.Fatal(err)
	}
	if v1[0] != v2[0] || v1[1] != v2[1] {
		t.Fatal("the same seed gave different video bytes")
	}
	if v1[0] == v1[1] {
		t.Fatal("two noise videos of one batch are identical")
	}
}

func TestVideoErrors(t *testing.T) {
	needFFmpeg(t)
	cfg := DefaultConfig()
	cfg.Video.Width, cfg.Video.Height, cfg.Video.Duration = 32, 32, 1

	t.Run("cancelled", func(t *testing.T) {
		g, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, _, _, err := g.Turn(ctx, seeded(13)); !errors.Is(err, context.Canceled) {
			t.Fatalf("Turn error = %v, want context.Canceled", err)
		}
	})
	t.Run("unknown codec", func(t *testing.T) {
		bad := cfg
		bad.Video.Codec = "no-such-codec"
		g, err := New(bad)
		if err != nil {
			t.Fatal(err)
		}
		_, _, _, err = g.Turn(context.Background(), seeded(13))
		if err == nil || !strings.Contains(err.Error(), "no-such-codec") || !strings.Contains(err.Error(), "ffmpeg") {
			t.Fatalf("Turn error = %v, want an ffmpeg error naming the codec", err)
		}
	})
}
