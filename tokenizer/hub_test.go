package tokenizer

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	llamaCommit = "8cde5ca8380496c9a6cc7ef3a8b46a0372a1d920"
	tokJSON     = `{"version":"1.0","added_tokens":[{"id":3,"content":"<s>","special":true}],"model":{"type":"BPE","vocab":{"a":0}}}`
	cfgJSON     = `{"bos_token":"<s>","eos_token":null}`
)

func testRepos() map[string]*fakeRepo {
	return map[string]*fakeRepo{
		"meta-llama/Llama-3": {commit: llamaCommit, gated: true, lfs: map[string]bool{"tokenizer.json": true},
			files: map[string]string{"tokenizer.json": tokJSON, "tokenizer_config.json": cfgJSON}},
		"org/plain": {commit: strings.Repeat("ab", 20),
			files: map[string]string{"tokenizer.json": tokJSON}},
		"org/old-name": {movedTo: "org/plain"},
		"org/slow-only": {commit: strings.Repeat("cd", 20),
			files: map[string]string{"tokenizer.model": "sentencepiece"}},
	}
}

type hubEnv struct {
	fake *fakeHub
	home string
	logs *bytes.Buffer
}

func newHubEnv(t *testing.T) *hubEnv {
	return &hubEnv{fake: newFakeHub(t, testRepos()), home: t.TempDir(), logs: &bytes.Buffer{}}
}

func (e *hubEnv) hub(t *testing.T, token string, offline bool) *hub {
	t.Helper()
	h, err := newHub(LoadOptions{Endpoint: e.fake.srv.URL + "/", HFHome: e.home, Token: token,
		Offline: offline, Logger: nil}, slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The cache must have huggingface_hub's layout, so both tools share it.
func TestHubDownloadLayout(t *testing.T) {
	e := newHubEnv(t)
	files, err := e.hub(t, fakeToken, false).files(context.Background(), "meta-llama/Llama-3", "")
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(e.home, "hub", "models--meta-llama--Llama-3")
	snap := filepath.Join(repo, "snapshots", llamaCommit)
	if files.tokenizer != filepath.Join(snap, "tokenizer.json") || files.config != filepath.Join(snap, "tokenizer_config.json") {
		t.Fatalf("files = %+v, want both in %s", files, snap)
	}
	// LFS: the blob is named by the sha256 from X-Linked-Etag.
	for _, c := range []struct{ file, blob, contents string }{
		{"tokenizer.json", sha256Hex(tokJSON), tokJSON},
		{"tokenizer_config.json", gitETag(cfgJSON), cfgJSON},
	} {
		target, err := os.Readlink(filepath.Join(snap, c.file))
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join("..", "..", "blobs", c.blob); target != want {
			t.Errorf("%s -> %s, want %s", c.file, target, want)
		}
		if got := readFile(t, filepath.Join(repo, "blobs", c.blob)); got != c.contents {
			t.Errorf("blob of %s = %q, want %q", c.file, got, c.contents)
		}
	}
	if got := readFile(t, filepath.Join(repo, "refs", "main")); got != llamaCommit {
		t.Errorf("refs/main = %q, want %q", got, llamaCommit)
	}
	if e.fake.sawCDNAuth() {
		t.Error("the token was sent to the CDN")
	}
	if strings.Contains(e.logs.String(), fakeToken) {
		t.Errorf("token in logs: %s", e.logs)
	}
}

func TestHubMissingConfigAndRename(t *testing.T) {
	e := newHubEnv(t)
	// org/old-name answers with a relative redirect to org/plain, which has
	// no tokenizer_config.json: a 404 that is fine, recorded in .no_exist.
	files, err := e.hub(t, "", false).files(context.Background(), "org/old-name", "main")
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(e.home, "hub", "models--org--old-name")
	commit := strings.Repeat("ab", 20)
	if files.tokenizer != filepath.Join(repo, "snapshots", commit, "tokenizer.json") || files.config != "" {
		t.Fatalf("files = %+v", files)
	}
	if readFile(t, files.tokenizer) != tokJSON {
		t.Error("wrong tokenizer.json contents")
	}
	if _, err := os.Stat(filepath.Join(repo, ".no_exist", commit, "tokenizer_config.json")); err != nil {
		t.Errorf(".no_exist marker: %v", err)
	}
}

func TestHubCacheReuse(t *testing.T) {
	e := newHubEnv(t)
	ctx := context.Background()
	h := e.hub(t, fakeToken, false)
	first, err := h.files(ctx, "meta-llama/Llama-3", "main")
	if err != nil {
		t.Fatal(err)
	}
	gets := e.fake.count("GET")
	if gets != 2 {
		t.Fatalf("first load made %d GETs, want 2", gets)
	}
	second, err := h.files(ctx, "meta-llama/Llama-3", "main")
	if err != nil {
		t.Fatal(err)
	}
	if second != first {
		t.Errorf("second = %+v, want %+v", second, first)
	}
	if n := e.fake.count("GET"); n != gets {
		t.Errorf("second load downloaded again: %d GETs", n-gets)
	}
	// A cached commit needs no request at all, with or without a config.
	for _, repo := range []string{"meta-llama/Llama-3", "org/plain"} {
		commit := e.hub(t, fakeToken, false).mustFiles(t, repo, "main")
		before := len(e.fake.log())
		if _, err := h.files(ctx, repo, commit); err != nil {
			t.Fatal(err)
		}
		if n := len(e.fake.log()) - before; n != 0 {
			t.Errorf("%s at a cached commit made %d requests", repo, n)
		}
	}
}

// mustFiles loads repo at rev and returns the commit it resolved to.
func (h *hub) mustFiles(t *testing.T, repo, rev string) string {
	t.Helper()
	files, err := h.files(context.Background(), repo, rev)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Base(filepath.Dir(files.tokenizer))
}

func TestHubOffline(t *testing.T) {
	e := newHubEnv(t)
	ctx := context.Background()
	_, err := e.hub(t, "", true).files(ctx, "org/plain", "main")
	repo := filepath.Join(e.home, "hub", "models--org--plain")
	for _, want := range []string{"HF_HUB_OFFLINE=1", `revision "main"`, repo, "tokenizer.json"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("offline miss: error %v, want it to mention %q", err, want)
		}
	}
	if n := e.fake.count("HEAD") + e.fake.count("GET"); n != 0 {
		t.Fatalf("offline made %d requests", n)
	}
	online, err := e.hub(t, "", false).files(ctx, "org/plain", "main")
	if err != nil {
		t.Fatal(err)
	}
	before := len(e.fake.log())
	for _, rev := range []string{"main", strings.Repeat("ab", 20)} {
		got, err := e.hub(t, "", true).files(ctx, "org/plain", rev)
		if err != nil {
			t.Fatalf("offline hit %s: %v", rev, err)
		}
		if got != online {
			t.Errorf("offline %s = %+v, want %+v", rev, got, online)
		}
	}
	if len(e.fake.log()) != before {
		t.Error("offline hit made requests")
	}
	if _, err := e.hub(t, "", true).files(ctx, "org/plain", "v2"); err == nil {
		t.Error("offline with an uncached revision succeeded")
	}
}

// An unreachable hub falls back on the cache, as huggingface_hub does.
func TestHubUnreachable(t *testing.T) {
	e := newHubEnv(t)
	ctx := context.Background()
	h := e.hub(t, "", false)
	if _, err := h.files(ctx, "org/plain", ""); err != nil {
		t.Fatal(err)
	}
	e.fake.srv.Close()
	if _, err := h.files(ctx, "org/plain", ""); err != nil {
		t.Errorf("cached model with the hub down: %v", err)
	}
	if !strings.Contains(e.logs.String(), "hub unreachable") {
		t.Errorf("no warning logged: %s", e.logs)
	}
	_, err := h.files(ctx, "meta-llama/Llama-3", "")
	var ne *networkError
	if !errors.As(err, &ne) {
		t.Errorf("uncached model with the hub down: %v, want a network error", err)
	}
}

func TestHubErrors(t *testing.T) {
	tests := []struct {
		name, repo, rev, token string
		want                   []string
	}{
		{"gated anonymous", "meta-llama/Llama-3", "", "", []string{"gated", "401", "HF_TOKEN", "/meta-llama/Llama-3"}},
		{"gated wrong token", "meta-llama/Llama-3", "", "hf_wrong", []string{"gated", "403", "request", "/meta-llama/Llama-3", "not in the authorized list"}},
		{"unknown anonymous", "org/nope", "", "", []string{"no such model", "401", "HF_TOKEN"}},
		{"unknown with token", "org/nope", "", fakeToken, []string{"no such model", "404"}},
		{"bad revision", "org/plain", "v9", "", []string{`revision "v9"`, "does not exist", "--tokenizer-revision"}},
		{"no tokenizer.json", "org/slow-only", "", "", []string{"no tokenizer.json", "fast tokenizers"}},
		{"revision escape", "org/plain", "../../x", "", []string{"invalid revision"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newHubEnv(t)
			_, err := e.hub(t, tt.token, false).files(context.Background(), tt.repo, tt.rev)
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), fakeToken) || strings.Contains(err.Error(), "hf_wrong") {
				t.Errorf("token in error: %v", err)
			}
			if blobs, _ := filepath.Glob(filepath.Join(e.home, "hub", "*", "blobs", "*")); len(blobs) != 0 {
				t.Errorf("a failed load left blobs: %v", blobs)
			}
		})
	}
}

// A branch name with '/' is escaped whole in the URL and nests in refs/.
func TestHubSlashRevision(t *testing.T) {
	e := newHubEnv(t)
	if _, err := e.hub(t, "", false).files(context.Background(), "org/plain", "refs/pr/1"); err != nil {
		t.Fatal(err)
	}
	if reqs := e.fake.log(); len(reqs) == 0 || !strings.Contains(reqs[0], "/resolve/refs%2Fpr%2F1/") {
		t.Errorf("requests = %v", reqs)
	}
	ref := filepath.Join(e.home, "hub", "models--org--plain", "refs", "refs", "pr", "1")
	if got := readFile(t, ref); got != strings.Repeat("ab", 20) {
		t.Errorf("refs/refs/pr/1 = %q", got)
	}
}

// A cut-off download fails and leaves no blob behind.
func TestHubShortDownload(t *testing.T) {
	e := newHubEnv(t)
	e.fake.mu.Lock()
	e.fake.short = true
	e.fake.mu.Unlock()
	_, err := e.hub(t, fakeToken, false).files(context.Background(), "meta-llama/Llama-3", "")
	if err == nil {
		t.Fatal("a short download succeeded")
	}
	left, _ := filepath.Glob(filepath.Join(e.home, "hub", "models--meta-llama--Llama-3", "blobs", "*"))
	if len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestNewHubEndpoint(t *testing.T) {
	for _, ep := range []string{"ftp://x", "huggingface.co", "http://"} {
		if _, err := newHub(LoadOptions{Endpoint: ep, HFHome: t.TempDir()}, slog.Default()); err == nil {
			t.Errorf("endpoint %q accepted", ep)
		}
	}
	h, err := newHub(LoadOptions{HFHome: "/x"}, slog.Default())
	if err != nil || h.endpoint.String() != DefaultEndpoint || h.root != filepath.Join("/x", "hub") {
		t.Errorf("defaults: %+v, %v", h, err)
	}
}
