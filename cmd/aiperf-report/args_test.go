package main

import (
	"strings"
	"testing"
	"time"
)

func TestFlagsFirst(t *testing.T) {
	var rc rootConfig
	for _, tc := range []struct{ in, want string }{
		{"show RUN --format csv", "show --format csv -- RUN"},
		{"--db x show RUN", "--db x show -- RUN"},
		{"regress --metric m.p99 --max-increase 10%", "regress --metric m.p99 --max-increase 10%"},
		{"analyze-trace f.jsonl --block-size 512", "analyze-trace --block-size 512 -- f.jsonl"},
		{"sql --write 'DROP x' --db d", "sql --write --db d -- 'DROP x'"},
		{"sql -f q.sql", "sql -f q.sql"},
		{"sql -", "sql -- -"},
		{"sql -- -1", "sql -- -1"},
		{"compare A --format=json B", "compare --format=json -- A B"},
	} {
		cmd := newRootCommand(&rc)
		got := strings.Join(flagsFirst(cmd, strings.Fields(tc.in)), " ")
		if got != tc.want {
			t.Errorf("flagsFirst(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2026-11-01", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), true},
		{"2026-11-01T08:00:00Z", time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC), true},
		{"2026-11-01 08:00:00", time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC), true},
		{"36h", now.Add(-36 * time.Hour), true},
		{"7d", now.Add(-7 * 24 * time.Hour), true},
		{"yesterday", time.Time{}, false},
		{"-3d", time.Time{}, false},
	} {
		got, err := parseSince(tc.in, now)
		if (err == nil) != tc.ok || !got.Equal(tc.want) {
			t.Errorf("parseSince(%q) = %v, %v", tc.in, got, err)
		}
	}
}
