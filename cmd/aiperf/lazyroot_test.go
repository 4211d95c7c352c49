package main

import (
	"io"
	"testing"
)

// TestNewRootForBuildsOnlyTheNamedSubcommand checks that every subcommand
// of the full tree is found by its name alone, and that anything else
// (no subcommand, a flag, an unknown word) builds the full tree.
func TestNewRootForBuildsOnlyTheNamedSubcommand(t *testing.T) {
	full := newRoot(nil, io.Discard, io.Discard)
	if len(full.Subcommands) < 12 {
		t.Fatalf("full tree has %d subcommands, want at least 12", len(full.Subcommands))
	}
	for _, sub := range full.Subcommands {
		one := newRootFor(sub.Name, nil, io.Discard, io.Discard)
		if len(one.Subcommands) != 1 || one.Subcommands[0].Name != sub.Name {
			t.Errorf("newRootFor(%q) built %d subcommands", sub.Name, len(one.Subcommands))
		}
	}
	for _, word := range []string{"", "--help", "-h", "profil", "Profile"} {
		if got := len(newRootFor(word, nil, io.Discard, io.Discard).Subcommands); got != len(full.Subcommands) {
			t.Errorf("newRootFor(%q) built %d subcommands, want all %d", word, got, len(full.Subcommands))
		}
	}
}
