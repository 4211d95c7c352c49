package plot

import (
	"math"
	"sort"
	"strconv"
)

// pageData is what the page's interactive charts (assets/report.js) draw,
// marshalled into the page as JSON. Unknown numbers are null.
type pageData struct {
	Metrics   []pageMetric `json:"metrics"`
	Stats     []string     `json:"stats"`
	Groups    []pageGroup  `json:"groups"`
	Runs      []pageRun    `json:"runs"`
	SweepAxis string       `json:"sweepAxis"`
}

type pageMetric struct {
	Tag  string `json:"tag"`
	Name string `json:"name"`
}

// pageGroup is a legend entry, with its colour (groupColor).
type pageGroup struct {
	Name  string `json:"name"`
	Color string `json:"color"`
}

// pageRun is one run's point on the charts.
type pageRun struct {
	ID         string                         `json:"id"`
	Group      string                         `json:"group"`
	Sweep      *float64                       `json:"sweep"`
	Label      string                         `json:"label"`
	Load       string                         `json:"load"`
	Marked     bool                           `json:"marked"`
	Validity   string                         `json:"validity"`
	Throughput *float64                       `json:"throughput"`
	Stats      map[string]map[string]*float64 `json:"stats"`
}

// newPageData returns the interactive charts' data of runs, nil for none.
func newPageData(runs []runInfo) *pageData {
	if len(runs) == 0 {
		return nil
	}
	d := &pageData{Stats: latencyStats}
	for _, m := range latencyMetrics {
		d.Metrics = append(d.Metrics, pageMetric{m.Tag, m.Name})
	}
	seen := map[string]bool{}
	conc, rate := false, false
	for _, r := range runs {
		if !seen[r.Group] {
			seen[r.Group] = true
			d.Groups = append(d.Groups, pageGroup{Name: r.Group, Color: colorHex(groupColor(r.Group))})
		}
		conc = conc || !math.IsNaN(r.Concurrency)
		rate = rate || math.IsNaN(r.Concurrency) && !math.IsNaN(r.Rate)
		pr := pageRun{ID: r.ID, Group: r.Group, Sweep: nullable(r.sweep()), Label: r.sweepLabel(), Load: loadText(r),
			Marked: r.marked(), Validity: r.validity(), Throughput: nullable(r.Throughput), Stats: map[string]map[string]*float64{}}
		for _, m := range latencyMetrics {
			stats := map[string]*float64{}
			for _, s := range latencyStats {
				stats[s] = nullable(r.stat(m.Tag, s))
			}
			pr.Stats[m.Tag] = stats
		}
		d.Runs = append(d.Runs, pr)
	}
	sort.Slice(d.Groups, func(i, j int) bool { return d.Groups[i].Name < d.Groups[j].Name })
	switch {
	case conc && rate:
		d.SweepAxis = "concurrency, or request rate (requests/s)"
	case rate:
		d.SweepAxis = "request rate (requests/s)"
	default:
		d.SweepAxis = "concurrency"
	}
	return d
}

// loadText describes a run's load in words for its tooltip.
func loadText(r runInfo) string {
	switch {
	case !math.IsNaN(r.Concurrency):
		return "concurrency " + strconv.FormatFloat(r.Concurrency, 'f', -1, 64)
	case !math.IsNaN(r.Rate):
		return "request rate " + strconv.FormatFloat(r.Rate, 'f', -1, 64) + "/s"
	}
	return ""
}

// nullable is v, or nil when it is NaN or infinite (JSON has neither).
func nullable(v float64) *float64 {
	if !finite(v) {
		return nil
	}
	return &v
}
