package tokenizer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// metaTimeout bounds each metadata (HEAD) request, as huggingface_hub's
// HF_HUB_ETAG_TIMEOUT does.
const metaTimeout = 10 * time.Second

// hub fetches tokenizer files from a Hugging Face hub into its cache.
type hub struct {
	endpoint *url.URL
	token    string
	client   *http.Client
	root     string // HF_HOME/hub
	offline  bool
	log      *slog.Logger
}

func newHub(o LoadOptions, log *slog.Logger) (*hub, error) {
	ep := strings.TrimRight(o.Endpoint, "/")
	if ep == "" {
		ep = DefaultEndpoint
	}
	u, err := url.Parse(ep)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("invalid hub endpoint %q (want http(s)://host)", o.Endpoint)
	}
	home := o.HFHome
	if home == "" {
		userHome, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("no Hugging Face home: %w", err)
		}
		home = filepath.Join(userHome, ".cache", "huggingface")
	}
	client := o.Client
	if client == nil {
		client = &http.Client{}
	}
	return &hub{endpoint: u, token: o.Token, client: client, root: filepath.Join(home, "hub"),
		offline: o.Offline, log: log}, nil
}

// files returns repo's tokenizer.json and tokenizer_config.json at
// revision rev ("" = main) from the cache. Online, it first asks the hub
// which commit rev is (unless rev is a commit already in the cache) and
// downloads what the cache lacks; if the hub cannot be reached it falls
// back on the cache, with a warning. Offline, it uses the cache only.
func (h *hub) files(ctx context.Context, repo, rev string) (hfFiles, error) {
	if rev == "" {
		rev = "main"
	}
	if err := validRevision(rev); err != nil {
		return hfFiles{}, err
	}
	dir := repoDir(h.root, repo)
	if h.offline {
		files, err := cachedFiles(dir, rev)
		if err != nil {
			return hfFiles{}, fmt.Errorf("HF_HUB_OFFLINE=1 is set and %s of revision %q is not in the "+
				"Hugging Face cache (looked in %s); run once online to download it, or pass a local "+
				"tokenizer.json or directory", tokenizerFile, rev, dir)
		}
		return files, nil
	}
	if isCommit(rev) {
		// A commit never changes: a complete snapshot needs no network.
		files, err := cachedFiles(dir, rev)
		if err == nil && (files.config != "" || isFile(filepath.Join(dir, ".no_exist", rev, configFile))) {
			return files, nil
		}
	}
	tok, commit, err := h.fetch(ctx, repo, dir, rev, tokenizerFile)
	if err != nil {
		var ne *networkError
		if errors.As(err, &ne) && ctx.Err() == nil {
			if files, cerr := cachedFiles(dir, rev); cerr == nil {
				h.log.Warn("tokenizer: hub unreachable, using the cached files", "tokenizer", repo,
					"revision", rev, "error", ne.err)
				return files, nil
			}
		}
		return hfFiles{}, err
	}
	if err := writeRef(dir, rev, commit); err != nil {
		return hfFiles{}, fmt.Errorf("hugging face cache: %w", err)
	}
	files := hfFiles{tokenizer: tok}
	// The config of the same commit, so that both files match.
	cfg, _, err := h.fetch(ctx, repo, dir, commit, configFile)
	var nf *notFoundError
	switch {
	case errors.As(err, &nf):
		markMissing(dir, commit, configFile)
	case err != nil:
		return hfFiles{}, err
	default:
		files.config = cfg
	}
	return files, nil
}

// fileMeta is what a HEAD of a resolve URL tells about a file.
type fileMeta struct {
	commit, etag string
	size         int64  // -1 when unknown
	location     string // where to GET the contents
}

// fetch makes snapshots/<commit>/<file> of revision rev present in dir and
// returns its path and the commit. The contents are downloaded only when
// the blob with the file's ETag is not cached yet.
func (h *hub) fetch(ctx context.Context, repo, dir, rev, file string) (path, commit string, err error) {
	meta, err := h.head(ctx, repo, rev, file)
	if err != nil {
		return "", "", err
	}
	blob := filepath.Join(dir, "blobs", meta.etag)
	if isFile(blob) {
		h.log.Debug("tokenizer: cached", "tokenizer", repo, "file", file, "commit", meta.commit)
	} else if err := h.download(ctx, repo, file, meta, blob); err != nil {
		return "", "", err
	}
	pointer := filepath.Join(dir, "snapshots", meta.commit, file)
	if err := link(blob, pointer); err != nil {
		return "", "", fmt.Errorf("hugging face cache: %w", err)
	}
	return pointer, meta.commit, nil
}

// resolveURL is {endpoint}/{repo}/resolve/{revision}/{file}, the revision
// escaped whole ("refs/pr/1" → "refs%2Fpr%2F1") as huggingface_hub does.
func (h *hub) resolveURL(repo, rev, file string) string {
	return h.endpoint.String() + "/" + repo + "/resolve/" + url.PathEscape(rev) + "/" + file
}

// head asks the hub for file's commit and ETag. It follows redirects within
// the hub's host (a renamed repository) and stops at one to another host
// (a CDN holding large files), whose response carries the metadata in
// X-Repo-Commit and X-Linked-Etag.
func (h *hub) head(ctx context.Context, repo, rev, file string) (fileMeta, error) {
	ctx, cancel := context.WithTimeout(ctx, metaTimeout)
	defer cancel()
	client := *h.client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	u := h.resolveURL(repo, rev, file)
	var commit, etag, size string
	for hops := 0; ; hops++ {
		req, err := h.request(ctx, http.MethodHead, u)
		if err != nil {
			return fileMeta{}, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return fileMeta{}, &networkError{op: "reach " + h.endpoint.Host, err: err}
		}
		resp.Body.Close()
		if c := resp.Header.Get("X-Repo-Commit"); c != "" {
			commit = c
		}
		if e := firstHeader(resp.Header, "X-Linked-Etag", "ETag"); e != "" {
			etag = normalizeETag(e)
		}
		if s := resp.Header.Get("X-Linked-Size"); s != "" {
			size = s
		} else if s := resp.Header.Get("Content-Length"); s != "" && resp.StatusCode == http.StatusOK {
			size = s
		}
		loc, _ := resp.Location()
		switch {
		case resp.StatusCode >= 300 && resp.StatusCode < 400 && loc != nil && loc.Host == h.endpoint.Host && hops < 10:
			u = loc.String()
			continue
		case resp.StatusCode >= 300 && resp.StatusCode < 400 && loc != nil:
			u = loc.String()
		case resp.StatusCode != http.StatusOK:
			return fileMeta{}, h.statusError(resp, repo, rev, file)
		}
		if !safeName(commit) || !safeName(etag) {
			return fileMeta{}, fmt.Errorf("%s: the response has no usable X-Repo-Commit and ETag "+
				"headers; is %s a Hugging Face hub?", h.resolveURL(repo, rev, file), h.endpoint)
		}
		n, err := strconv.ParseInt(size, 10, 64)
		if err != nil {
			n = -1
		}
		return fileMeta{commit: commit, etag: etag, size: n, location: u}, nil
	}
}

// download GETs meta.location into blob, through a temporary file renamed
// into place once complete.
func (h *hub) download(ctx context.Context, repo, file string, meta fileMeta, blob string) error {
	h.log.Info("tokenizer: downloading", "tokenizer", repo, "file", file, "commit", meta.commit,
		"bytes", meta.size)
	req, err := h.request(ctx, http.MethodGet, meta.location)
	if err != nil {
		return err
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return &networkError{op: "download " + file, err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return h.statusError(resp, repo, meta.commit, file)
	}
	if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
		return fmt.Errorf("hugging face cache: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(blob), meta.etag+".*.incomplete")
	if err != nil {
		return fmt.Errorf("hugging face cache: %w", err)
	}
	n, err := io.Copy(f, resp.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && meta.size >= 0 && n != meta.size {
		err = fmt.Errorf("got %d bytes, want %d", n, meta.size)
	}
	if err == nil {
		err = os.Rename(f.Name(), blob)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return &networkError{op: "download " + file, err: err}
	}
	return nil
}

// request builds a hub request. The token goes to the hub's own host only,
// never to a CDN it redirects to (whose URLs are signed); Go's client also
// drops it on redirects to other domains.
func (h *hub) request(ctx context.Context, method, u string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "aiperf-go")
	req.Header.Set("Accept-Encoding", "identity")
	if h.token != "" && req.URL.Host == h.endpoint.Host {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	return req, nil
}

func firstHeader(h http.Header, names ...string) string {
	for _, n := range names {
		if v := h.Get(n); v != "" {
			return v
		}
	}
	return ""
}

// normalizeETag strips the weak prefix and quotes: `W/"abc"` → abc.
func normalizeETag(e string) string {
	return strings.Trim(strings.TrimPrefix(e, "W/"), `"`)
}
