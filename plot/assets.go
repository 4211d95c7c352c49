package plot

import (
	"embed"
	"html/template"
	"strings"
)

// assets are the report's scripts: the vendored Chart.js 4.6.1
// (plot/assets/README.md says how to update it) and our own report.js.
//
//go:embed assets/chart.umd.min.js assets/report.js
var assets embed.FS

// script returns a vendored script, fit to inline in a <script> element:
// without its source-map comment, which would name a file that is not
// there.
func script(name string) template.JS {
	b, err := assets.ReadFile("assets/" + name)
	if err != nil {
		panic("plot: embedded asset " + name + ": " + err.Error()) // embedded at build time
	}
	s := string(b)
	if i := strings.LastIndex(s, "//# sourceMappingURL="); i >= 0 {
		s = s[:i]
	}
	return template.JS(s) //nolint:gosec // our own embedded files
}
