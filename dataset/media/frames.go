package media

import (
	"io"
	"math"
	"math/rand/v2"
	"strconv"
)

// Video synthesis types accepted by VideoConfig.SynthType (--video-synth-type).
const (
	SynthMovingShapes = "moving_shapes" // three shapes crossing a black frame
	SynthGridClock    = "grid_clock"    // a grid, a clock face and a frame counter
	SynthNoise        = "noise"         // uniform random pixels
)

// rgb is one RGB24 colour.
type rgb [3]byte

// frame is a w×h RGB24 image, row-major, the layout ffmpeg's rawvideo rgb24
// input expects.
type frame struct {
	w, h int
	pix  []byte
}

func newFrame(w, h int) *frame { return &frame{w: w, h: h, pix: make([]byte, w*h*3)} }

// set paints pixel (x, y), ignoring points outside the frame.
func (f *frame) set(x, y int, c rgb) {
	if x < 0 || y < 0 || x >= f.w || y >= f.h {
		return
	}
	i := (y*f.w + x) * 3
	f.pix[i], f.pix[i+1], f.pix[i+2] = c[0], c[1], c[2]
}

func (f *frame) fill(c rgb) {
	for i := 0; i < len(f.pix); i += 3 {
		f.pix[i], f.pix[i+1], f.pix[i+2] = c[0], c[1], c[2]
	}
}

// disc paints the pixels within r of (cx, cy).
func (f *frame) disc(cx, cy, r float64, c rgb) {
	f.ring(cx, cy, -1, r, c)
}

// ring paints the pixels whose distance d from (cx, cy) has inner < d ≤ outer.
func (f *frame) ring(cx, cy, inner, outer float64, c rgb) {
	for y := int(math.Floor(cy - outer)); y <= int(math.Ceil(cy+outer)); y++ {
		for x := int(math.Floor(cx - outer)); x <= int(math.Ceil(cx+outer)); x++ {
			d := math.Hypot(float64(x)-cx, float64(y)-cy)
			if d > inner && d <= outer {
				f.set(x, y, c)
			}
		}
	}
}

// rect paints the pixels in [x0, x1]×[y0, y1].
func (f *frame) rect(x0, y0, x1, y1 float64, c rgb) {
	for y := int(math.Ceil(y0)); y <= int(math.Floor(y1)); y++ {
		for x := int(math.Ceil(x0)); x <= int(math.Floor(x1)); x++ {
			f.set(x, y, c)
		}
	}
}

// line paints the pixels within width/2 of the segment (x0, y0)–(x1, y1).
func (f *frame) line(x0, y0, x1, y1, width float64, c rgb) {
	hw := width / 2
	dx, dy := x1-x0, y1-y0
	l2 := dx*dx + dy*dy
	for y := int(math.Floor(min(y0, y1) - hw)); y <= int(math.Ceil(max(y0, y1)+hw)); y++ {
		for x := int(math.Floor(min(x0, x1) - hw)); x <= int(math.Ceil(max(x0, x1)+hw)); x++ {
			t := 0.0
			if l2 > 0 {
				t = math.Max(0, math.Min(1, ((float64(x)-x0)*dx+(float64(y)-y0)*dy)/l2))
			}
			if math.Hypot(float64(x)-(x0+t*dx), float64(y)-(y0+t*dy)) <= hw {
				f.set(x, y, c)
			}
		}
	}
}

// digitGlyphs are 3×5 bitmaps of 0–9, one 3-bit row per entry, MSB left.
var digitGlyphs = [10][5]uint8{
	{7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7}, {5, 5, 7, 1, 1},
	{7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 1, 1, 1}, {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7},
}

// number paints n in decimal with its top-left corner at (x, y), each glyph
// pixel a scale×scale block and one blank column between glyphs.
func (f *frame) number(x, y, n, scale int, c rgb) {
	for _, ch := range strconv.Itoa(n) {
		g := digitGlyphs[ch-'0']
		for row, bits := range g {
			for col := range 3 {
				if bits&(4>>col) != 0 {
					for dy := range scale {
						for dx := range scale {
							f.set(x+col*scale+dx, y+row*scale+dy, c)
						}
					}
				}
			}
		}
		x += 4 * scale
	}
}

// painter draws frame i of total into f.
type painter func(f *frame, i int)

// newPainter returns the painter of synth for w×h frames; noise frames draw
// from rng in frame order.
func newPainter(synth string, w, h, total int, rng *rand.Rand) painter {
	switch synth {
	case SynthGridClock:
		return gridClock(w, h, total)
	case SynthNoise:
		return func(f *frame, _ int) { fillRandom(rng, f.pix) }
	default:
		return movingShapes(w, h, total)
	}
}

// movingShapes follows AIPerf: on black, a red circle (30 px) crosses
// left to right at mid-height in half the clip, a green square (25 px) falls
// from the top centre, and a blue circle (20 px) moves up-left from the
// bottom-right corner; positions wrap around the edges.
func movingShapes(w, h, total int) painter {
	fw, fh, n := float64(w), float64(h), float64(total)
	type shape struct {
		circle         bool
		c              rgb
		size           int
		x0, y0, dx, dy float64
	}
	shapes := []shape{
		{true, rgb{255, 0, 0}, 30, 0, float64(h / 2), fw / n * 2, 0},
		{false, rgb{0, 255, 0}, 25, float64(w / 2), 0, 0, fh / n * 2},
		{true, rgb{0, 0, 255}, 20, fw, fh, -fw / n * 1.5, -fh / n * 1.5},
	}
	return func(f *frame, i int) {
		f.fill(rgb{})
		for _, s := range shapes {
			x := floorMod(s.x0+s.dx*float64(i), fw)
			y := floorMod(s.y0+s.dy*float64(i), fh)
			r := float64(s.size / 2)
			if s.circle {
				f.disc(x, y, r, s.c)
			} else {
				f.rect(x-r, y-r, x+r, y+r, s.c)
			}
		}
	}
}

// gridClock follows AIPerf: a dark grey frame with a 32 px grid, a clock
// whose minute hand turns once over the clip (the hour hand 1/12 as fast),
// a red centre dot and the frame number at (10, 10). AIPerf writes
// "Frame N" with Pillow's font; this draws the digits only.
func gridClock(w, h, total int) painter {
	base := newFrame(w, h)
	base.fill(rgb{32, 32, 32})
	grid := rgb{64, 64, 64}
	for x := 0; x < w; x += 32 {
		for y := range h {
			base.set(x, y, grid)
		}
	}
	for y := 0; y < h; y += 32 {
		for x := range w {
			base.set(x, y, grid)
		}
	}
	cx, cy := float64(w/2), float64(h/2)
	r := float64(min(w, h) / 4)
	return func(f *frame, i int) {
		copy(f.pix, base.pix)
		angle := float64(i) / float64(total) * 2 * math.Pi
		hour := angle / 12
		f.line(cx, cy, cx+r*0.6*math.Cos(hour-math.Pi/2), cy+r*0.6*math.Sin(hour-math.Pi/2), 3, rgb{255, 255, 0})
		f.line(cx, cy, cx+r*0.9*math.Cos(angle-math.Pi/2), cy+r*0.9*math.Sin(angle-math.Pi/2), 2, rgb{255, 255, 255})
		f.ring(cx, cy, r-2, r, rgb{128, 128, 128})
		f.disc(cx, cy, 3, rgb{255, 0, 0})
		f.number(10, 10, i, 2, rgb{255, 255, 255})
	}
}

// floorMod is Python's float %: the result has the sign of m.
func floorMod(x, m float64) float64 {
	r := math.Mod(x, m)
	if r < 0 {
		r += m
	}
	return r
}

// frameReader streams total painted frames as raw RGB24, one frame buffer
// reused throughout, so a long clip never sits in memory whole.
type frameReader struct {
	f       *frame
	paint   painter
	next    int
	total   int
	pending []byte
}

func newFrameReader(w, h, total int, p painter) *frameReader {
	return &frameReader{f: newFrame(w, h), paint: p, total: total}
}

// Read implements io.Reader.
func (r *frameReader) Read(p []byte) (int, error) {
	if len(r.pending) == 0 {
		if r.next == r.total {
			return 0, io.EOF
		}
		r.paint(r.f, r.next)
		r.next++
		r.pending = r.f.pix
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// WriteTo implements io.WriterTo, writing whole frames.
func (r *frameReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	if len(r.pending) > 0 {
		n, err := w.Write(r.pending)
		total += int64(n)
		r.pending = nil
		if err != nil {
			return total, err
		}
	}
	for ; r.next < r.total; r.next++ {
		r.paint(r.f, r.next)
		n, err := w.Write(r.f.pix)
		total += int64(n)
		if err != nil {
			r.next++
			return total, err
		}
	}
	return total, nil
}
