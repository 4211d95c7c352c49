// Package public loads the public datasets of --public-dataset (reference
// §4.6): today ShareGPT, downloaded once into a cache or read from a local
// copy.
package public

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
)

// DefaultCacheDir returns where downloaded datasets are kept by default:
// $XDG_CACHE_HOME/aiperf-go/datasets, or ~/.cache/aiperf-go/datasets when
// xdgCacheHome is empty. The caller reads the environment and passes
// XDG_CACHE_HOME and the home directory.
func DefaultCacheDir(xdgCacheHome, home string) string {
	if xdgCacheHome == "" {
		xdgCacheHome = filepath.Join(home, ".cache")
	}
	return filepath.Join(xdgCacheHome, "aiperf-go", "datasets")
}

// ErrNotCached is wrapped by Fetch's error when the file is missing and
// downloads are off.
var ErrNotCached = errors.New("dataset not cached")

// Fetch makes sure path holds the file at url. When path exists it returns
// at once. Otherwise, unless offline, it downloads url with client (nil
// means http.DefaultClient) into a temporary file beside path, which it
// renames to path once the whole body has arrived: a failed, short or
// cancelled download leaves no file at path. Offline, a missing file is an
// error wrapping ErrNotCached that says where to put it. Fetch blocks until
// the download ends or ctx is done.
func Fetch(ctx context.Context, client *http.Client, url, path string, offline bool) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("dataset cache: %w", err)
	}
	if offline {
		return fmt.Errorf("%w: %s is missing and downloads are off (offline); download %s and save it as %s, or pass the file's path instead",
			ErrNotCached, path, url, path)
	}
	if client == nil {
		client = http.DefaultClient
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("dataset cache: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("download %s: %w", url, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("download %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("download %s: %s", url, resp.Status)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.part")
	if err != nil {
		return fmt.Errorf("dataset cache: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	n, err := io.Copy(tmp, resp.Body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil && resp.ContentLength >= 0 && n != resp.ContentLength {
		err = fmt.Errorf("got %d of %d bytes", n, resp.ContentLength)
	}
	if err != nil {
		return fmt.Errorf("download %s: %w", url, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("dataset cache: %w", err)
	}
	return nil
}
