// Package sink stores runs in a blob store (any gocloud.dev URL: file://,
// mem://, s3://, gs://, azblob://, or a plain directory path) so that nothing
// lives only on the benchmark machine: one prefix per run, records streamed
// as immutable segments while the run goes on, and a manifest written last.
// The layout is documented in docs/storage.md.
//
// Plain paths are opened with fileblob directly; drivers for URLs are not
// imported here: a binary that opens s3:// URLs blank-imports
// gocloud.dev/blob/s3blob (see cmd/aiperf).
package sink

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
)

// Store is a destination for runs: a bucket, possibly narrowed to a prefix.
type Store struct {
	// Bucket holds the runs; the Store owns it and closes it in Close.
	Bucket *blob.Bucket
	// Location is the destination as given, for messages (it never carries
	// credentials: gocloud URLs take them from the environment).
	Location string
	// LocalDir is the directory of a plain-path destination, else "".
	LocalDir string
}

// IsURL reports whether dest names a blob store URL rather than a path.
func IsURL(dest string) bool {
	scheme, _, ok := strings.Cut(dest, "://")
	return ok && scheme != "" && !strings.ContainsAny(scheme, `/\`)
}

// Open opens dest with mux (nil: gocloud's default mux): a gocloud URL (a path after the bucket name is a key
// prefix: s3://bucket/nightly is s3://bucket?prefix=nightly/), or a plain
// directory path, which is created and stored without metadata sidecar
// files so that it looks like an AIPerf artifact directory.
func Open(ctx context.Context, dest string, mux *blob.URLMux) (*Store, error) {
	if mux == nil {
		mux = blob.DefaultURLMux()
	}
	if !IsURL(dest) {
		dir, err := filepath.Abs(dest)
		if err != nil {
			return nil, fmt.Errorf("artifact dir %q: %w", dest, err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("artifact dir: %w", err)
		}
		b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite, NoTempDir: true})
		if err != nil {
			return nil, fmt.Errorf("artifact dir %q: %w", dest, err)
		}
		return &Store{Bucket: b, Location: dir, LocalDir: dir}, nil
	}
	u, err := url.Parse(dest)
	if err != nil {
		return nil, fmt.Errorf("artifact store URL %q: %w", dest, err)
	}
	if u.Scheme == "file" && u.Query().Get("create_dir") == "" {
		q := u.Query()
		q.Set("create_dir", "true") // like a plain path: create the directory
		u.RawQuery = q.Encode()
	}
	if u.Scheme != "file" && strings.Trim(u.Path, "/") != "" {
		q := u.Query()
		prefix := strings.Trim(u.Path, "/") + "/"
		if p := q.Get("prefix"); p != "" {
			prefix += p
		}
		q.Set("prefix", prefix)
		u.Path, u.RawQuery = "", q.Encode()
	}
	b, err := mux.OpenBucket(ctx, u.String())
	if err != nil {
		return nil, fmt.Errorf("artifact store %q: %w", dest, err)
	}
	return &Store{Bucket: b, Location: dest}, nil
}

// ObjectURL names the object key of the store for messages: the directory
// path of a plain-path destination, else the store URL with the key added
// to its path, before its query (s3://bench/nightly/runs/…/x.json?region=…).
func (s *Store) ObjectURL(key string) string {
	if s.LocalDir != "" {
		return filepath.Join(s.LocalDir, filepath.FromSlash(key))
	}
	u, err := url.Parse(s.Location)
	if err != nil {
		return s.Location + "/" + key
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/" + key
	u.RawPath = ""
	return u.String()
}

// Close closes the bucket.
func (s *Store) Close() error { return s.Bucket.Close() }
