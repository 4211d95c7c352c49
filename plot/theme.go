package plot

import (
	"errors"
	"fmt"
	"html/template"
	"image/color"

	gonumplot "gonum.org/v1/plot"
)

// ErrTheme reports a theme name other than light or dark.
var ErrTheme = errors.New(`invalid theme: want "light" or "dark"`)

// Theme names, as aiperf plot --theme spells them.
const (
	ThemeLight = "light"
	ThemeDark  = "dark"
)

// theme holds the colours of one look: the charts' background and ink,
// and the page's extra style and Chart.js defaults. The light theme is
// the zero look: charts and page as they are drawn without a theme.
type theme struct {
	dark       bool
	background color.RGBA // chart canvas and page background
	ink        color.RGBA // titles, axes, ticks, legend text
}

// darkTheme reads light ink on a near-black ground, as AIPerf's dark
// plot theme does.
var darkTheme = theme{dark: true, background: color.RGBA{0x1e, 0x1e, 0x1e, 0xff}, ink: color.RGBA{0xe0, 0xe0, 0xe0, 0xff}}

// CheckTheme returns an error wrapping ErrTheme for a name other than "",
// ThemeLight and ThemeDark, so that a command can refuse it before any
// work.
func CheckTheme(name string) error {
	_, err := parseTheme(name)
	return err
}

// parseTheme returns the named theme; "" is light.
func parseTheme(name string) (theme, error) {
	switch name {
	case "", ThemeLight:
		return theme{}, nil
	case ThemeDark:
		return darkTheme, nil
	}
	return theme{}, fmt.Errorf("%q: %w", name, ErrTheme)
}

// apply recolours a chart before it is drawn; the light theme leaves it
// as it is.
func (t theme) apply(d chartDrawer) {
	if !t.dark {
		return
	}
	switch c := d.(type) {
	case *gonumplot.Plot:
		t.style(c)
	case *Chart:
		t.style(c.Plot)
		c.Legend.TextStyle.Color = t.ink
		c.Background = t.background
	case *Figure:
		for _, p := range c.Panels {
			t.style(p)
		}
		c.Background = t.background
	}
}

// style recolours one plot's background, title, axes and legend.
func (t theme) style(p *gonumplot.Plot) {
	p.BackgroundColor = t.background
	p.Title.TextStyle.Color = t.ink
	p.Legend.TextStyle.Color = t.ink
	for _, a := range []*gonumplot.Axis{&p.X, &p.Y} {
		a.LineStyle.Color = t.ink
		a.Label.TextStyle.Color = t.ink
		a.Tick.Label.Color = t.ink
		a.Tick.LineStyle.Color = t.ink
	}
}

// pageStyle is the extra CSS of report.html for the theme, "" for light.
func (t theme) pageStyle() template.CSS {
	if !t.dark {
		return ""
	}
	return template.CSS(fmt.Sprintf(`body { background: %s; color: %s; }
th, td { border-color: #555; }
tr.marked td { background: #4a2424; }
a { color: #8ab4f8; }
.note { color: #f0a060; }
#aiperf-tooltip { background: #2a2a2a; border-color: #777; color: %[2]s; }
`, colorHex(t.background), colorHex(t.ink)))
}

// chartJSDefaults is a script setting Chart.js's text and grid colours
// for the theme, "" for light (Chart.js's own defaults).
func (t theme) chartJSDefaults() template.JS {
	if !t.dark {
		return ""
	}
	return template.JS(fmt.Sprintf("Chart.defaults.color = %q; Chart.defaults.borderColor = 'rgba(255,255,255,0.15)';", colorHex(t.ink)))
}
