package export

import (
	"strings"

	"github.com/aiperf-go/aiperf/metrics"
)

// consoleWidth is the width of AIPerf 0.13's recorded console
// (AIPERF_UI_CONSOLE_EXPORT_WIDTH), at which it wraps plain text.
const consoleWidth = 140

// cacheReportingHint is AIPerf 0.13's CACHE_REPORTING_HINT
// (aiperf/metrics/cache_reporting_hint.py), word for word.
const cacheReportingHint = "Token usage is reported but no prompt-cache read tokens were seen " +
	"(usage.prompt_tokens_details.cached_tokens absent). If your server uses " +
	"prefix/KV caching, enable cache reporting so AIPerf can populate the " +
	"prompt-cache metrics: vLLM --enable-prompt-tokens-details, SGLang " +
	"--enable-cache-report (TRT-LLM reports it by default)."

// appendConsole14 appends what AIPerf 0.13's console exporters print, in
// the order its plugins.yaml lists them: the error summary, the HTTP Trace
// Timing table (info.ShowTraceTiming), the metrics tables followed by the
// cache-reporting hint, then, with GPU telemetry, the GPU platform panel,
// the GPU Power Efficiency table and the GPU Telemetry Summary
// (appendGPUSections14), and the two warnings, which 0.13 prints after the
// metrics as 0.8 did.
func appendConsole14(b []byte, s *metrics.Summary, info *RunInfo) []byte {
	b = appendErrorTable(b, s.Errors)
	if info.ShowTraceTiming {
		b = appendTraceTimingTable(b, s)
	}
	n := len(b)
	b = appendMetricsTable(b, s, info)
	if len(b) > n && usageWithoutCacheRead(s) {
		b = append(b, '\n')
		for _, line := range wrapRich(cacheReportingHint, consoleWidth) {
			b = append(b, line...)
			b = append(b, '\n')
		}
	}
	b = padTitles(b)
	b = appendGPUSections14(b, s, info)
	b = appendUsageDiscrepancyPanel(b, s, info)
	return appendOSLMismatchPanel(b, s, info)
}

// padTitles pads each table title in b (the line above a table's top
// rule) with spaces to the table's width: the rich of AIPerf 0.13 pads a
// centered title on both sides, where 0.8's, whose text appendTable
// reproduces, left the right side bare.
func padTitles(b []byte) []byte {
	lines := strings.Split(string(b), "\n")
	for i := 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "┏") && strings.HasPrefix(lines[i-1], " ") {
			if pad := cellWidth(lines[i]) - cellWidth(lines[i-1]); pad > 0 {
				lines[i-1] += strings.Repeat(" ", pad)
			}
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

// usageWithoutCacheRead reports whether the server reported prompt tokens
// but never a prompt-cache read count (0.13's usage_without_cache_in_results:
// a reported total of 0 cache reads does not count).
func usageWithoutCacheRead(s *metrics.Summary) bool {
	return s.Get("total_usage_prompt_tokens") != nil && s.Get("total_usage_prompt_cache_read_tokens") == nil
}

// wrapRich wraps text at width as rich prints plain text: a word and the
// spaces after it stay together, a line breaks before a word that does not
// fit, and a line keeps its trailing spaces up to width. A word longer
// than width gets a line of its own (rich would fold it; no text we print
// has one).
func wrapRich(text string, width int) []string {
	var lines []string
	line, used := 0, 0 // start of the current line in text, its width
	for i := 0; i < len(text); {
		end := i
		for end < len(text) && text[end] != ' ' {
			end++
		}
		word := cellWidth(text[i:end])
		for end < len(text) && text[end] == ' ' {
			end++
		}
		if used > 0 && width-used < word {
			lines = append(lines, text[line:i])
			line, used = i, 0
		}
		used += cellWidth(text[i:end])
		i = end
	}
	lines = append(lines, text[line:])
	for k, l := range lines { // spaces past width go (rich's rstrip_end)
		for cellWidth(l) > width && strings.HasSuffix(l, " ") {
			l = l[:len(l)-1]
		}
		lines[k] = l
	}
	return lines
}
