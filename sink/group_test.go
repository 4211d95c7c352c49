package sink

import (
	"regexp"
	"strings"
	"testing"
)

// TestCheckGroupMatchesPattern checks the hand-written group check against
// the pattern it replaces, on edge cases and fuzzed input.
func TestCheckGroupMatchesPattern(t *testing.T) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	cases := []string{
		"", "a", "Z9", "_a", ".a", "-a", "a.", "a_b-c.d", "a b", "a/b", "é", "aé",
		strings.Repeat("a", 128), strings.Repeat("a", 129), "a" + strings.Repeat("-", 127),
		"a\n", "\na", "a\x00",
	}
	for _, g := range cases {
		if got, want := CheckGroup(g) == nil, pattern.MatchString(g); got != want {
			t.Errorf("CheckGroup(%q) valid = %v, want %v", g, got, want)
		}
	}
}

// FuzzCheckGroup compares the hand-written check with the pattern.
func FuzzCheckGroup(f *testing.F) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	for _, s := range []string{"a", "a-b", "-a", strings.Repeat("x", 130)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, g string) {
		if got, want := CheckGroup(g) == nil, pattern.MatchString(g); got != want {
			t.Errorf("CheckGroup(%q) valid = %v, want %v", g, got, want)
		}
	})
}
