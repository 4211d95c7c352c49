package export

import (
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/metrics"
)

// This file holds AIPerf's warning panels: rich Panels with a centered title,
// two spaces of padding and no expansion, drawn as plain text.

// validCount is the denominator of the warning panels' percentages: the
// valid records, or else the request_count result; 0 when neither is known.
func validCount(s *metrics.Summary) int {
	if s.Valid > 0 {
		return s.Valid
	}
	if r := s.Get("request_count"); r != nil && r.Avg > 0 {
		return int(r.Avg)
	}
	return 0
}

// appendUsageDiscrepancyPanel appends an empty line and the "Token Count
// Discrepancy Warning" panel when some requests' usage token counts differ
// from the client's.
func appendUsageDiscrepancyPanel(b []byte, s *metrics.Summary, info *RunInfo) []byte {
	total := validCount(s)
	if s.UsageDiscrepancies <= 0 || total == 0 {
		return b
	}
	pct := float64(s.UsageDiscrepancies) / float64(total) * 100
	threshold := pyG(orDefault(info.UsageDiffThresholdPct, 10))
	lines := []string{
		fmt.Sprintf("%s of %s requests (%.1f%%) show a difference exceeding %s%% between:",
			commaInt(int64(s.UsageDiscrepancies)), commaInt(int64(total)), pct, threshold),
		"  • API-reported usage tokens (from 'usage' field)",
		"  • Client-computed token counts (from tokenization)",
		"",
		"Possible Causes:",
		"  • Different tokenization methods (API vs client)",
		"  • API special tokens or preprocessing",
		"",
		"Investigation Steps:",
		"  1. Review profile_export.jsonl for per-request usage_*_diff_pct values",
		"  2. Verify client tokenizer matches the model's tokenizer",
		"  3. Use server token counts: --use-server-token-count (disables client tokenization and diff metrics)",
		"  4. Adjust threshold: AIPERF_METRICS_USAGE_PCT_DIFF_THRESHOLD=" + threshold,
	}
	b = append(b, '\n')
	return appendPanel(b, "Token Count Discrepancy Warning", lines)
}

// appendOSLMismatchPanel appends an empty line and the "Output Sequence
// Length Mismatch Warning" panel when some requests' output length differs
// from the requested one beyond the threshold.
func appendOSLMismatchPanel(b []byte, s *metrics.Summary, info *RunInfo) []byte {
	total := validCount(s)
	if s.OSLMismatches <= 0 || total == 0 {
		return b
	}
	pct := float64(s.OSLMismatches) / float64(total) * 100
	threshold := pyG(orDefault(info.OSLMismatchThresholdPct, 5))
	maxTokens := info.OSLMismatchMaxTokens
	if maxTokens == 0 {
		maxTokens = 50
	}
	avgDiff := "N/A"
	if r := s.Get("osl_mismatch_diff_pct"); r != nil {
		avgDiff = fmt.Sprintf("%.1f%%", r.Avg)
	}
	lines := []string{
		fmt.Sprintf("%s of %s requests (%.1f%%) have output length differing from requested by more than the threshold.",
			commaInt(int64(s.OSLMismatches)), commaInt(int64(total)), pct),
		fmt.Sprintf("Threshold (tokens): min(requested × %s%%, %d)", threshold, maxTokens),
		"Average mismatch: " + avgDiff,
		"",
		"Why: Server hit EOS token before reaching requested output length.",
		"",
		"Fix Options:",
		"  • --extra-inputs ignore_eos:true — Generate until max_tokens (vLLM, TensorRT-LLM)",
		"  • --extra-inputs min_tokens:<N> — Set minimum output length (vLLM, TensorRT-LLM, SGLang)",
		"  • --use-server-token-count — Use server-reported token counts if tokenizer mismatch suspected",
		"",
		"Diagnostics:",
		"  • Review profile_export.jsonl → osl_mismatch_diff_pct for per-request values",
		"  • Adjust: AIPERF_METRICS_OSL_MISMATCH_PCT_THRESHOLD=" + threshold,
		fmt.Sprintf("  • Adjust: AIPERF_METRICS_OSL_MISMATCH_MAX_TOKEN_THRESHOLD=%d", maxTokens),
	}
	b = append(b, '\n')
	return appendPanel(b, "Output Sequence Length Mismatch Warning", lines)
}

// appendPanel appends a rich Panel(expand=False, padding=(0, 2)) holding
// lines, with title centered in its top border.
func appendPanel(b []byte, title string, lines []string) []byte {
	inner := 0
	for _, l := range lines {
		inner = max(inner, cellWidth(l))
	}
	inner += 4 // padding
	titleText := " " + title + " "
	// The title sits between "╭─" and "─╮"; widen the panel if it must.
	inner = max(inner, cellWidth(titleText)+2)
	excess := inner - 2 - cellWidth(titleText)
	left := excess / 2
	b = append(b, "╭─"...)
	b = append(b, strings.Repeat("─", left)...)
	b = append(b, titleText...)
	b = append(b, strings.Repeat("─", excess-left)...)
	b = append(b, "─╮\n"...)
	for _, l := range lines {
		b = append(b, "│  "...)
		b = append(b, l...)
		b = appendSpaces(b, inner-4-cellWidth(l))
		b = append(b, "  │\n"...)
	}
	b = append(b, "╰"...)
	b = append(b, strings.Repeat("─", inner)...)
	return append(b, "╯\n"...)
}
