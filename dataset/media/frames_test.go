package media

import (
	"bytes"
	"io"
	"testing"
)

// at returns the colour of pixel (x, y).
func (f *frame) at(x, y int) rgb {
	i := (y*f.w + x) * 3
	return rgb{f.pix[i], f.pix[i+1], f.pix[i+2]}
}

func TestMovingShapes(t *testing.T) {
	// 128×96, 8 frames. Frame 1 (hand-computed from AIPerf's motion):
	// red circle r=15 at (0 + 128/8×2, 48) = (32, 48);
	// green square half-side 12 at (64, 0 + 96/8×2) = (64, 24);
	// blue circle r=10 at (128 − 128/8×1.5, 96 − 96/8×1.5) = (104, 78).
	f := newFrame(128, 96)
	movingShapes(128, 96, 8)(f, 1)
	red, green, blue, black := rgb{255, 0, 0}, rgb{0, 255, 0}, rgb{0, 0, 255}, rgb{}
	tests := []struct {
		x, y int
		want rgb
	}{
		{32, 48, red}, {46, 48, red}, {48, 48, black}, {32, 33, red},
		{64, 24, green}, {76, 36, green}, {77, 24, black}, {52, 12, green},
		{104, 78, blue}, {104, 88, blue}, {104, 89, black}, {94, 78, blue},
		{0, 0, black}, {127, 95, black},
	}
	for _, tt := range tests {
		if got := f.at(tt.x, tt.y); got != tt.want {
			t.Errorf("pixel (%d,%d) = %v, want %v", tt.x, tt.y, got, tt.want)
		}
	}
	// Frame 4 wraps the red circle back to x = 128 mod 128 = 0.
	movingShapes(128, 96, 8)(f, 4)
	if got := f.at(0, 48); got != red {
		t.Errorf("frame 4 pixel (0,48) = %v, want red after wrapping", got)
	}
}

func TestGridClock(t *testing.T) {
	// 64×64, frame 0: both hands point up from (32, 32); clock radius 16.
	f := newFrame(64, 64)
	gridClock(64, 64, 4)(f, 0)
	bg, grid, white, gray, red, yellow := rgb{32, 32, 32}, rgb{64, 64, 64}, rgb{255, 255, 255}, rgb{128, 128, 128}, rgb{255, 0, 0}, rgb{255, 255, 0}
	tests := []struct {
		x, y int
		want rgb
	}{
		{5, 5, bg}, {0, 5, grid}, {5, 0, grid}, {32, 50, grid}, {50, 32, grid},
		{32, 32, red},                  // centre dot
		{32, 20, white},                // minute hand (0.9 r = 14.4 long)
		{31, 24, white},                // minute hand is 2 wide, drawn over the hour hand
		{32, 16, gray}, {48, 32, gray}, // clock face ring at r = 16
		{10, 10, white}, {11, 11, white}, {12, 12, bg}, // "0" at (10,10), scale 2: hollow middle
	}
	for _, tt := range tests {
		if got := f.at(tt.x, tt.y); got != tt.want {
			t.Errorf("pixel (%d,%d) = %v, want %v", tt.x, tt.y, got, tt.want)
		}
	}
	// Frame 1 of 4: the minute hand points right (a quarter turn) and the
	// hour hand, 3 wide and 9.6 long, has turned 7.5° to (33.25, 22.48).
	gridClock(64, 64, 4)(f, 1)
	if got := f.at(33, 24); got != yellow {
		t.Errorf("frame 1 pixel (33,24) = %v, want the hour hand", got)
	}
	if got := f.at(44, 32); got != white {
		t.Errorf("frame 1 pixel (44,32) = %v, want the minute hand", got)
	}
	if got := f.at(32, 20); got != grid {
		t.Errorf("frame 1 pixel (32,20) = %v, want the grid line the hand left", got)
	}
}

func TestFrameReaderStreams(t *testing.T) {
	const w, h, total = 7, 5, 3
	p := newPainter(SynthNoise, w, h, total, seeded(10))
	var whole bytes.Buffer
	if _, err := io.Copy(&whole, newFrameReader(w, h, total, p)); err != nil {
		t.Fatal(err)
	}
	if whole.Len() != w*h*3*total {
		t.Fatalf("%d bytes, want %d", whole.Len(), w*h*3*total)
	}
	// Small reads give the same bytes as WriteTo for the same seed.
	r := newFrameReader(w, h, total, newPainter(SynthNoise, w, h, total, seeded(10)))
	var small []byte
	buf := make([]byte, 11)
	for {
		n, err := r.Read(buf)
		small = append(small, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(small, whole.Bytes()) {
		t.Fatal("Read and WriteTo streams differ")
	}
	frameBytes := w * h * 3
	if bytes.Equal(small[:frameBytes], small[frameBytes:2*frameBytes]) {
		t.Fatal("two noise frames are identical")
	}
}
