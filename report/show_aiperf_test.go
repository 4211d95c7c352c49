package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/query"
)

// consoleTableOf returns the "NVIDIA AIPerf | <title>" table of a console
// output (title line through its bottom border), each line without
// trailing blanks, or "" when there is none.
func consoleTableOf(out, title string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "NVIDIA AIPerf | "+title {
			continue
		}
		var b strings.Builder
		for _, l := range lines[i:] {
			b.WriteString(strings.TrimRight(l, " ") + "\n")
			if strings.HasPrefix(l, "└") {
				return b.String()
			}
		}
	}
	return ""
}

// sortAdjusted sorts the error-adjusted rows of a console table (each
// with its continuation line) among their own places: AIPerf prints them
// in the order its record arrays were first filled, which changes from run
// to run; show prints them in the runner's order (metrics.LookupResult14)
// for a 1.4 run, in adjustedTags order for an older one.
func sortAdjusted(table string) string {
	lines := strings.Split(table, "\n")
	var blocks []string
	var at []int
	for i := 0; i < len(lines); i++ {
		if !strings.Contains(lines[i], "(error-adjusted)") {
			continue
		}
		block := lines[i]
		if i+1 < len(lines) && strings.HasPrefix(strings.TrimLeft(strings.TrimPrefix(lines[i+1], "│"), " "), "(") {
			block += "\n" + lines[i+1]
			lines[i+1] = ""
		}
		blocks, at = append(blocks, block), append(at, i)
	}
	slices.Sort(blocks)
	for k, i := range at {
		lines[i] = blocks[k]
	}
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return l == "" }), "\n")
}

// dropSummaryMetric removes the metric tag from the summary file.
func dropSummaryMetric(t *testing.T, path, tag string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	if _, ok := top[tag]; !ok {
		t.Fatalf("summary has no %s", tag)
	}
	delete(top, tag)
	if data, err = json.Marshal(top); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// showAIPerfDir ingests a copy of an AIPerf artifact directory of
// testdata, without the files named in drop (or the summary's metrics
// named "summary:TAG"), and returns show's console
// output for it.
func showAIPerfDir(t *testing.T, fixture string, drop ...string) string {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), fixture)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", fixture))); err != nil {
		t.Fatal(err)
	}
	for _, f := range drop {
		if tag, ok := strings.CutPrefix(f, "summary:"); ok {
			dropSummaryMetric(t, filepath.Join(dir, "profile_export_aiperf.json"), tag)
			continue
		}
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	db, err := query.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if st, err := db.IngestAIPerfDir(ctx, dir); err != nil || st.RunsLoaded != 1 {
		t.Fatalf("ingest %+v: %v", st, err)
	}
	var id string
	if err := db.SQL().QueryRowContext(ctx, `SELECT run_id FROM runs`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	s, info, err := Show(ctx, db.SQL(), id)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := export.WriteConsoleExport(&b, s, info); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// consoleTitles are the titles of AIPerf 0.13's metrics tables of an LLM
// run.
var consoleTitles = []string{"LLM Metrics: Effective", "LLM Metrics: Active", "LLM Metrics: Usage", "LLM Metrics"}

// TestShowAIPerfRunAsItPrinted: show on a run that Python AIPerf 0.13
// wrote (testdata/aiperf-0.13: 12 streaming requests against our mock
// server, 2 failed, written by `aiperf profile` itself) prints the console
// AIPerf printed, byte for byte: a summary of schema 1.4 gets AIPerf 0.13's
// console (the error summary, the Effective, Active and Usage tables, the
// metrics table, the prompt-cache hint), with its own throughputs over its
// own window (not a recomputation over the records' span, which gave a
// higher request throughput), its sweep-line metrics and effective latency
// as it stored them, and its rows that aiperf-go's 1.0 runner lacks
// (decode duration, E2E output token throughput, input token throughput,
// completed requests, error rate, the error-adjusted latencies, in the
// order this run printed them). Without the records (--export-level
// summary) the tables are the same; the error summary, which only the
// records give, is missing.
func TestShowAIPerfRunAsItPrinted(t *testing.T) {
	printed, err := os.ReadFile(filepath.Join("testdata", "aiperf-0.13", "profile_export_console.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := showAIPerfDir(t, "aiperf-0.13"); got != string(printed) {
		t.Errorf("show differs from AIPerf's own console:\n--- show\n%s--- AIPerf\n%s", got, printed)
	}
	for name, drop := range map[string][]string{
		"summary only": {"profile_export.jsonl"},
		// A summary without AIPerf 0.13's rows of the metrics table (as
		// AIPerf before 0.13 wrote): they are computed from the records.
		"rows from records": {"summary:decode_duration", "summary:e2e_output_token_throughput",
			"summary:input_token_throughput", "summary:completed_request_count", "summary:request_error_rate",
			"summary:adj_time_to_first_token", "summary:adj_request_latency", "summary:adj_decode_duration",
			"summary:adj_inter_token_latency"},
	} {
		t.Run(name, func(t *testing.T) {
			out := showAIPerfDir(t, "aiperf-0.13", drop...)
			for _, title := range consoleTitles {
				want := sortAdjusted(consoleTableOf(string(printed), title))
				if want == "" {
					t.Fatalf("no %s table in the fixture's console output", title)
				}
				if got := sortAdjusted(consoleTableOf(out, title)); got != want {
					t.Errorf("show's %s differs from AIPerf's own table:\n--- show\n%s--- AIPerf\n%s", title, got, want)
				}
			}
		})
	}
}

// TestShowAIPerf08Layout: a summary without any metric of the 1.4 layout
// (AIPerf before 0.13; here the 0.13 fixture without them) is shown in
// AIPerf 0.8's console: one metrics table, errors after it, no Effective,
// Active or Usage table.
func TestShowAIPerf08Layout(t *testing.T) {
	var drop []string
	for _, tag := range []string{"completed_request_count", "request_error_rate", "input_token_throughput",
		"effective_concurrency", "effective_decode_throughput", "effective_prefill_throughput",
		"effective_decode_concurrency", "effective_prefill_concurrency", "effective_total_throughput",
		"effective_decode_throughput_per_user", "effective_prefill_throughput_per_user", "tokens_in_flight",
		"active_decode_throughput", "active_prefill_throughput", "active_decode_throughput_per_user",
		"active_prefill_throughput_per_user", "active_total_throughput", "effective_latency"} {
		drop = append(drop, "summary:"+tag)
	}
	out := showAIPerfDir(t, "aiperf-0.13", drop...)
	metricsAt, errorsAt := strings.Index(out, "NVIDIA AIPerf | LLM Metrics"), strings.Index(out, "NVIDIA AIPerf | Error Summary")
	if metricsAt < 0 || errorsAt < metricsAt {
		t.Errorf("want the metrics table, then the error summary:\n%s", out)
	}
	for _, absent := range []string{"LLM Metrics: Effective", "LLM Metrics: Active", "LLM Metrics: Usage", "Usage Prompt Tokens",
		"Effective Latency", "prompt-cache"} {
		if strings.Contains(out, absent) {
			t.Errorf("0.8 console has %q:\n%s", absent, out)
		}
	}
}
