package plot

import (
	"image/color"
	"io"

	gonumplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Chart is a plot with its legend outside the data, to its right, so that
// no legend entry ever hides a point. It draws itself as a
// *gonumplot.Plot does; Plot.Legend is not drawn.
type Chart struct {
	Plot   *gonumplot.Plot
	Legend gonumplot.Legend
	// Background, when set, fills the whole canvas (legend included)
	// before drawing; nil leaves it as the format starts it.
	Background color.Color
}

// WriterTo draws the chart on a canvas of height h and width w plus the
// legend's width, in format (png, svg, …).
func (c *Chart) WriterTo(w, h vg.Length, format string) (io.WriterTo, error) {
	gap := 4 * vg.Millimeter
	// Rectangle measures text only; the canvas it is given just places it.
	lw := c.Legend.Rectangle(draw.Canvas{}).Size().X + 2*gap
	canvas, err := draw.NewFormattedCanvas(w+lw, h, format)
	if err != nil {
		return nil, err
	}
	dc := draw.New(canvas)
	fillBackground(dc, c.Background)
	plotArea := dc
	plotArea.Max.X = dc.Min.X + w
	c.Plot.Draw(plotArea)
	legendArea := dc
	legendArea.Min.X = plotArea.Max.X + gap
	legendArea.Max.Y -= 2 * gap // level with the plot's title
	legend := c.Legend
	legend.Top, legend.Left = true, true
	legend.Draw(legendArea)
	return canvas, nil
}

// fillBackground paints the whole canvas bg; nil paints nothing.
func fillBackground(dc draw.Canvas, bg color.Color) {
	if bg == nil {
		return
	}
	dc.SetColor(bg)
	dc.Fill(dc.Rectangle.Path())
}
