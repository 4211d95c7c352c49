package tokenizer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeRepo is a model repository on fakeHub.
type fakeRepo struct {
	commit  string
	files   map[string]string // name → contents
	lfs     map[string]bool   // served through the CDN, as large files are
	gated   bool              // needs fakeToken
	movedTo string            // answers with a relative redirect to this repo
}

const fakeToken = "hf_secretTOKEN123"

// fakeHub behaves like huggingface.co's resolve endpoint: X-Repo-Commit and
// ETag headers; for LFS files a 302 to a CDN on another host with
// X-Linked-Etag (the sha256) and X-Linked-Size; X-Error-Code on errors, 401
// for unknown repositories when anonymous. It counts requests and records
// whether the CDN ever saw an Authorization header.
type fakeHub struct {
	srv, cdn *httptest.Server
	repos    map[string]*fakeRepo

	mu       sync.Mutex
	requests []string // "HEAD /org/name/resolve/main/tokenizer.json"
	cdnAuth  bool
	short    bool // the CDN sends one byte less than it announces
}

func newFakeHub(t *testing.T, repos map[string]*fakeRepo) *fakeHub {
	t.Helper()
	f := &fakeHub{repos: repos}
	f.cdn = httptest.NewServer(http.HandlerFunc(f.serveCDN))
	f.srv = httptest.NewServer(http.HandlerFunc(f.serveHub))
	t.Cleanup(f.srv.Close)
	t.Cleanup(f.cdn.Close)
	return f
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// gitETag is the ETag the fake gives a non-LFS file (HF uses the git blob
// id; any stable value serves here).
func gitETag(contents string) string { return sha256Hex("blob " + contents)[:40] }

func (f *fakeHub) record(r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+r.URL.EscapedPath())
}

// log returns the requests so far, oldest first.
func (f *fakeHub) log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

func (f *fakeHub) sawCDNAuth() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cdnAuth
}

func (f *fakeHub) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if strings.HasPrefix(r, method+" ") {
			n++
		}
	}
	return n
}

func (f *fakeHub) serveHub(w http.ResponseWriter, r *http.Request) {
	f.record(r)
	// /{org}/{name}/resolve/{revision}/{file}
	parts := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	if len(parts) != 5 || parts[2] != "resolve" {
		http.NotFound(w, r)
		return
	}
	repoID := parts[0] + "/" + parts[1]
	rev, err := url.PathUnescape(parts[3])
	if err != nil {
		http.Error(w, "bad revision", http.StatusBadRequest)
		return
	}
	file := parts[4]
	authed := r.Header.Get("Authorization") == "Bearer "+fakeToken
	repo, ok := f.repos[repoID]
	switch {
	case !ok && r.Header.Get("Authorization") == "":
		hubError(w, http.StatusUnauthorized, "RepoNotFound", "Repository not found")
		return
	case !ok:
		hubError(w, http.StatusNotFound, "RepoNotFound", "Repository not found")
		return
	case repo.movedTo != "":
		http.Redirect(w, r, "/"+repo.movedTo+"/resolve/"+parts[3]+"/"+file, http.StatusTemporaryRedirect)
		return
	case repo.gated && r.Header.Get("Authorization") == "":
		hubError(w, http.StatusUnauthorized, "GatedRepo", "Access to model "+repoID+" is restricted.")
		return
	case repo.gated && !authed:
		hubError(w, http.StatusForbidden, "GatedRepo", "Access to model "+repoID+" is restricted and you are not in the authorized list.")
		return
	case rev != "main" && rev != repo.commit && rev != "refs/pr/1":
		hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev)
		return
	}
	contents, ok := repo.files[file]
	if !ok {
		w.Header().Set("X-Repo-Commit", repo.commit)
		hubError(w, http.StatusNotFound, "EntryNotFound", file+" does not exist on \"main\"")
		return
	}
	w.Header().Set("X-Repo-Commit", repo.commit)
	if repo.lfs[file] {
		w.Header().Set("X-Linked-Etag", `"`+sha256Hex(contents)+`"`)
		w.Header().Set("X-Linked-Size", strconv.Itoa(len(contents)))
		w.Header().Set("ETag", `"`+gitETag("pointer")+`"`)
		http.Redirect(w, r, f.cdn.URL+"/blobs/"+url.PathEscape(repoID)+"/"+file+"?sig=abc", http.StatusFound)
		return
	}
	w.Header().Set("ETag", `W/"`+gitETag(contents)+`"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(contents)))
	if r.Method == http.MethodGet {
		_, _ = w.Write([]byte(contents))
	}
}

func (f *fakeHub) serveCDN(w http.ResponseWriter, r *http.Request) {
	f.record(r)
	f.mu.Lock()
	if r.Header.Get("Authorization") != "" {
		f.cdnAuth = true
	}
	short := f.short
	f.mu.Unlock()
	// /blobs/{org%2Fname}/{file}
	parts := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/blobs/"), "/")
	repoID, _ := url.PathUnescape(parts[0])
	repo, ok := f.repos[repoID]
	if !ok || len(parts) != 2 || r.URL.Query().Get("sig") != "abc" {
		http.Error(w, "denied", http.StatusForbidden)
		return
	}
	contents := repo.files[parts[1]]
	w.Header().Set("Content-Length", strconv.Itoa(len(contents)))
	if short {
		contents = contents[:len(contents)-1]
	}
	_, _ = w.Write([]byte(contents))
}

func hubError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("X-Error-Code", code)
	w.Header().Set("X-Error-Message", msg)
	w.WriteHeader(status)
	_, _ = fmt.Fprintln(w, msg)
}
