package tokenizer

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadBuiltin(t *testing.T) {
	tok, err := Load(context.Background(), "builtin", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := Builtin(); tok != b {
		t.Error("Load(builtin) is not Builtin()")
	}
	if _, err := Load(context.Background(), " ", LoadOptions{}); err == nil {
		t.Error("empty name accepted")
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, contents := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(contents), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLocateLocal(t *testing.T) {
	withCfg, bare, empty := t.TempDir(), t.TempDir(), t.TempDir()
	writeFiles(t, withCfg, map[string]string{tokenizerFile: tokJSON, configFile: cfgJSON})
	writeFiles(t, bare, map[string]string{"my-tokenizer.json": tokJSON})
	tests := []struct {
		name string
		want hfFiles
		err  string
	}{
		{withCfg, hfFiles{filepath.Join(withCfg, tokenizerFile), filepath.Join(withCfg, configFile)}, ""},
		{filepath.Join(withCfg, tokenizerFile), hfFiles{filepath.Join(withCfg, tokenizerFile), filepath.Join(withCfg, configFile)}, ""},
		{filepath.Join(bare, "my-tokenizer.json"), hfFiles{tokenizer: filepath.Join(bare, "my-tokenizer.json")}, ""},
		{empty, hfFiles{}, "has no tokenizer.json"},
		{filepath.Join(empty, "missing", "tokenizer.json"), hfFiles{}, "not a Hugging Face model id"},
		{"./not-here", hfFiles{}, "not a Hugging Face model id"},
		{"org/name/extra", hfFiles{}, "not a Hugging Face model id"},
	}
	for _, tt := range tests {
		// Offline with an empty home: a hub lookup would fail with a
		// different message, so these show no hub was consulted.
		got, err := locate(context.Background(), tt.name, LoadOptions{Offline: true, HFHome: t.TempDir()}, slog.New(slog.DiscardHandler))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("locate(%q) error = %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("locate(%q) = %+v, %v, want %+v", tt.name, got, err, tt.want)
		}
	}
}

func TestLocateHubOffline(t *testing.T) {
	home := t.TempDir()
	_, err := locate(context.Background(), "meta-llama/Meta-Llama-3-8B", LoadOptions{Offline: true, HFHome: home, Revision: "v1"}, slog.New(slog.DiscardHandler))
	want := filepath.Join(home, "hub", "models--meta-llama--Meta-Llama-3-8B")
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `"v1"`) {
		t.Errorf("error = %v, want it to name %s and the revision", err, want)
	}
	if errors.Is(err, fs.ErrNotExist) {
		t.Error("the offline miss should be a message, not a bare not-exist error")
	}
}

func TestValidRepoID(t *testing.T) {
	valid := []string{"gpt2", "meta-llama/Meta-Llama-3-8B-Instruct", "Qwen/Qwen3-0.6B", "a/b", "org_1/x.y-z"}
	invalid := []string{"", "/", "a/", "/b", "a/b/c", "../x", "a/..", "a/.b", "a/b-", "a--b/c", "a/b..c",
		"a/b.git", "a b/c", "a/b?c", "org\\name", strings.Repeat("x", 97)}
	for _, id := range valid {
		if err := validRepoID(id); err != nil {
			t.Errorf("validRepoID(%q) = %v", id, err)
		}
	}
	for _, id := range invalid {
		if validRepoID(id) == nil {
			t.Errorf("validRepoID(%q) accepted", id)
		}
	}
}

// Whatever passes validation stays inside the cache root.
func FuzzValidRepoID(f *testing.F) {
	for _, s := range []string{"gpt2", "org/name", "../x", "a/../../b", "a/b/c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if validRepoID(id) != nil {
			return
		}
		dir := repoDir("/cache/hub", id)
		if filepath.Dir(dir) != "/cache/hub" || !strings.HasPrefix(filepath.Base(dir), "models--") {
			t.Errorf("%q maps to %s", id, dir)
		}
	})
}
