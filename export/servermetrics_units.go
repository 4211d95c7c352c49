package export

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// serverMetricSuffixUnits maps Prometheus name suffixes to AIPerf's unit
// names (server_metrics/units.py); the longest matching suffix wins.
var serverMetricSuffixUnits = map[string]string{
	"_seconds": "seconds", "_seconds_total": "seconds",
	"_milliseconds": "milliseconds", "_ms": "milliseconds", "_ms_total": "milliseconds",
	"_nanoseconds": "nanoseconds", "_ns": "nanoseconds", "_ns_total": "nanoseconds",
	"_bytes": "bytes", "_kilobytes": "kilobytes", "_megabytes": "megabytes", "_gigabytes": "gigabytes",
	"_bytes_total": "bytes",
	"_total":       "count", "_count": "count",
	"_tokens": "tokens", "_tokens_total": "tokens",
	"_requests": "requests", "_requests_total": "requests", "request_success": "requests",
	"_errors": "errors", "_errors_total": "errors", "_error_count": "errors", "_error_count_total": "errors",
	"_reqs":   "requests",
	"_blocks": "blocks", "_blocks_total": "blocks", "_block_count": "blocks",
	"_gb_s":  "gb/s",
	"_ratio": "ratio", "_percent": "percent", "_perc": "percent",
	"_celsius": "celsius", "_joules": "joule", "_watts": "watt",
}

// serverMetricSuffixes are the suffixes, longest first.
var serverMetricSuffixes = func() []string {
	s := make([]string, 0, len(serverMetricSuffixUnits))
	for k := range serverMetricSuffixUnits {
		s = append(s, k)
	}
	slices.SortFunc(s, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b)) })
	return s
}()

// serverUnitTags map the "(in <unit>)" tags of DCGM-style descriptions.
var serverUnitTags = map[string]string{
	"MiB": "megabytes", "GiB": "gigabytes", "KiB": "kilobytes", "B": "bytes",
	"MB": "megabytes", "GB": "gigabytes", "KB": "kilobytes", "TB": "terabytes",
	"C": "celsius", "°C": "celsius", "F": "fahrenheit", "°F": "fahrenheit", "K": "kelvin",
	"Hz": "hertz", "MHz": "megahertz", "GHz": "gigahertz",
	"W": "watt", "mW": "milliwatt", "J": "joule", "mJ": "millijoule", "MJ": "megajoule",
	"s": "seconds", "sec": "seconds", "ms": "milliseconds", "ns": "nanoseconds",
	"us": "microseconds", "µs": "microseconds",
	"GB/s": "gb/s", "MB/s": "mb/s", "%": "percent", "percent": "percent",
}

// serverDescPatterns are the description patterns of serverMetricUnit,
// compiled on first use: compiling them at package init cost the runner
// about 0.3 ms of start-up, and most runs scrape no server metrics.
type serverDescPatterns struct {
	paren, ratio, percent *regexp.Regexp
	units                 []serverDescUnit
}

// serverDescUnit is a description pattern and the unit it names.
type serverDescUnit struct {
	re   *regexp.Regexp
	unit string
}

var serverDesc = sync.OnceValue(func() serverDescPatterns {
	return serverDescPatterns{
		paren: regexp.MustCompile(`\(in\s+([^\s)]+)\)`),
		ratio: regexp.MustCompile(`(?i)\(0(?:\.0)?\s*(?:[-–—]+|to)\s*1(?:\.0)?\)` +
			`|\b0(?:\.0)?\s*(?:[-–—]+|to)\s*1(?:\.0)?\b` +
			`|\brange\s+0(?:\.0)?\s*(?:[-–—]+|to)\s*1(?:\.0)?\b` +
			`|(?:\b|\()1(?:\.0)?\s*(?:means|is|equals?|==?)\s*100\s*(?:%|percent)`),
		percent: regexp.MustCompile(`(?i)\(0(?:\.0)?\s*(?:[-–—]+|to)\s*100(?:\.0)?\)` +
			`|\brange\s+0\s*(?:[-–—]+|to)\s*100\b` +
			`|\b0\s*(?:[-–—]+|to)\s*100\s*%`),
		units: []serverDescUnit{
			{regexp.MustCompile(`(?i)(?:\bin\s+|\()seconds?(?:\b|\))`), "seconds"},
			{regexp.MustCompile(`(?i)(?:\bin\s+|\()(?:milliseconds?|ms)(?:\b|\))`), "milliseconds"},
			{regexp.MustCompile(`(?i)(?:\bin\s+|\()(?:nanoseconds?|ns)(?:\b|\))`), "nanoseconds"},
			{regexp.MustCompile(`(?i)(?:\bin\s+|\()bytes?(?:\b|\))`), "bytes"},
			{regexp.MustCompile(`(?i)(?:\bin\s+|\()GB/s(?:\b|\))`), "gb/s"},
			{regexp.MustCompile(`(?i)(?:\bin\s+|\()MB/s(?:\b|\))`), "mb/s"},
			{regexp.MustCompile(`(?i)(?:\bin\s+|\()tokens?/s(?:ec(?:ond)?)?(?:\b|\))`), "tokens/s"},
			{regexp.MustCompile(`(?i)(?:\bin\s+|\()requests?/s(?:ec(?:ond)?)?(?:\b|\))`), "requests/s"},
			{regexp.MustCompile(`(?i)\bin\s+tokens?\b`), "tokens"},
		},
	}
})

// serverMetricUnit is AIPerf's infer_unit: a unit for a server metric from
// a range in its description ("(0-1)" ratio, "(0-100)" percent), else a
// unit named in its description ("(in MiB)", "in seconds"), else its name's
// suffix ("_seconds", "_tokens_total", …); "" when none applies. name is
// AIPerf's (a counter's without _total).
func serverMetricUnit(name, description string) string {
	if description != "" {
		pat := serverDesc()
		if pat.ratio.MatchString(description) {
			return "ratio"
		}
		if pat.percent.MatchString(description) {
			return "percent"
		}
		if m := pat.paren.FindStringSubmatch(description); m != nil {
			if u, ok := serverUnitTags[m[1]]; ok {
				return u
			}
		}
		for _, d := range pat.units {
			if d.re.MatchString(description) {
				return d.unit
			}
		}
	}
	lower := strings.ToLower(name)
	for _, s := range serverMetricSuffixes {
		if strings.HasSuffix(lower, s) {
			return serverMetricSuffixUnits[s]
		}
	}
	if strings.Contains(lower, "num_requests_") {
		return "requests"
	}
	return ""
}
