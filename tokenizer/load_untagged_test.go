//go:build !hftokenizers

package tokenizer

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Without the hftokenizers tag every tokenizer but builtin is refused, with
// how to build one that has them, before any download.
func TestLoadWithoutHFSupport(t *testing.T) {
	fake := newFakeHub(t, testRepos())
	for _, name := range []string{"org/plain", t.TempDir()} {
		_, err := Load(context.Background(), name, LoadOptions{Endpoint: fake.srv.URL, HFHome: t.TempDir()})
		if !errors.Is(err, ErrNoHFSupport) {
			t.Fatalf("Load(%q) = %v, want ErrNoHFSupport", name, err)
		}
		for _, want := range []string{name, "make build", "-tags hftokenizers", "--tokenizer builtin"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks %q", err, want)
			}
		}
	}
	if n := len(fake.log()); n != 0 {
		t.Errorf("%d hub requests", n)
	}
}
