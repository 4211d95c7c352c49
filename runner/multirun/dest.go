package multirun

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"gocloud.dev/blob"

	"github.com/aiperf-go/aiperf/sink"
)

// ProfileRunsDir holds one subdirectory per profile run.
const ProfileRunsDir = "profile_runs"

// RunLabel names profile run k (1-based) as AIPerf does: run_0001.
func RunLabel(k int) string { return fmt.Sprintf("run_%04d", k) }

// Join returns the destination elem (a slash-separated relative path) below
// dest, where dest is what --artifact-dir accepts: a directory path or a
// store URL. For a path it is filepath.Join. For a URL the sub-path goes
// where sink.Open will read it as a key prefix: appended to the prefix=
// parameter when the URL has one (a "/" is put between them unless the
// prefix already ends with one, so prefix=nightly and prefix=nightly/ both
// give nightly/profile_runs/run_0001/), else to the URL's path, which sink
// treats as a prefix (s3://bucket/nightly → s3://bucket/nightly/profile_runs/run_0001);
// a file:// URL's path is a directory. Other query parameters are kept.
func Join(dest, elem string) (string, error) {
	elem = strings.Trim(elem, "/")
	if elem == "" {
		return dest, nil
	}
	if !sink.IsURL(dest) {
		return filepath.Join(dest, filepath.FromSlash(elem)), nil
	}
	u, err := url.Parse(dest)
	if err != nil {
		return "", fmt.Errorf("artifact store URL %q: %w", dest, err)
	}
	if u.Scheme == "" || u.Opaque != "" {
		return "", fmt.Errorf("artifact store URL %q is not of the form scheme://bucket/path", dest)
	}
	q := u.Query()
	if p, ok := q["prefix"]; ok && u.Scheme != "file" && len(p) > 0 && p[0] != "" {
		prefix := p[0]
		if !strings.HasSuffix(prefix, "/") {
			prefix += "/"
		}
		q.Set("prefix", prefix+elem+"/")
		u.RawQuery = q.Encode()
		return u.String(), nil
	}
	u.Path = path.Join("/", u.Path, elem)
	u.RawPath = ""
	return u.String(), nil
}

// object is a file to store: a slash-separated name relative to the
// destination, and its content.
type object struct {
	name string
	data []byte
}

// putObjects stores objs, in order, in the destination dest (a directory
// or store URL) opened with stores. A directory destination gets plain
// files. Existing objects of the same name are replaced.
func putObjects(ctx context.Context, dest string, stores *blob.URLMux, objs ...object) (err error) {
	st, err := sink.Open(ctx, dest, stores)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	for _, o := range objs {
		if err := st.Bucket.WriteAll(ctx, o.name, o.data, nil); err != nil {
			return fmt.Errorf("store %s: %w", o.name, err)
		}
	}
	return nil
}

// where names an object written by putObjects for messages: a local path
// for a directory destination, else the destination and the key.
func where(dest, name string) string {
	if sink.IsURL(dest) {
		return strings.TrimSuffix(dest, "/") + " " + name
	}
	return filepath.Join(dest, filepath.FromSlash(name))
}
