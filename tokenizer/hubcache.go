package tokenizer

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// The Hugging Face cache layout, as huggingface_hub writes and reads it, so
// that both share one cache:
//
//	HF_HOME/hub/models--org--name/
//	  blobs/<etag>                       file contents, named by ETag
//	  snapshots/<commit>/<file>          relative symlink to ../../blobs/<etag>
//	  refs/<revision>                    the commit a branch or tag resolved to
//	  .no_exist/<commit>/<file>          empty: the file does not exist there

// repoDir is the cache directory of a model repository.
func repoDir(root, repo string) string {
	return filepath.Join(root, "models--"+strings.ReplaceAll(repo, "/", "--"))
}

// isCommit reports whether rev is a full commit hash, which names a
// snapshot directly (no refs file).
func isCommit(rev string) bool {
	if len(rev) != 40 {
		return false
	}
	for _, c := range rev {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// validRevision rejects revisions that could leave the cache directory as
// the path refs/<revision>. Branch names may contain '/' ("refs/pr/1").
func validRevision(rev string) error {
	if rev == "" || strings.ContainsAny(rev, "\\\x00") || strings.HasPrefix(rev, "/") {
		return fmt.Errorf("invalid revision %q", rev)
	}
	for _, part := range strings.Split(rev, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("invalid revision %q", rev)
		}
	}
	return nil
}

// safeName reports whether a server-sent commit or ETag can be used as one
// path element.
func safeName(s string) bool {
	if s == "" || s[0] == '.' || len(s) > 200 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// cachedFiles returns the files of revision rev from the cache without
// touching the network: the snapshot of rev itself when it is a commit,
// else of the commit in refs/<rev>. It fails when there is no such
// snapshot or it lacks tokenizer.json; a missing tokenizer_config.json
// leaves config "".
func cachedFiles(dir, rev string) (hfFiles, error) {
	commit := rev
	if !isCommit(rev) {
		b, err := os.ReadFile(filepath.Join(dir, "refs", filepath.FromSlash(rev)))
		if err != nil {
			return hfFiles{}, err
		}
		commit = strings.TrimSpace(string(b))
		if !safeName(commit) {
			return hfFiles{}, fmt.Errorf("bad commit %q in refs/%s", commit, rev)
		}
	}
	snap := filepath.Join(dir, "snapshots", commit)
	files := hfFiles{tokenizer: filepath.Join(snap, tokenizerFile)}
	if !isFile(files.tokenizer) {
		return hfFiles{}, fmt.Errorf("%s: %w", files.tokenizer, fs.ErrNotExist)
	}
	if cfg := filepath.Join(snap, configFile); isFile(cfg) {
		files.config = cfg
	}
	return files, nil
}

// link makes snapshots/<commit>/<file> point at blob, replacing what was
// there: a relative symlink, or a copy where symlinks are not allowed.
// It builds the link under a temporary name and renames it into place, so
// concurrent loaders never see a half-made one.
func link(blob, pointer string) error {
	if err := os.MkdirAll(filepath.Dir(pointer), 0o755); err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(pointer), blob)
	if err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.%x.tmp", pointer, rand.Uint64())
	_ = os.Remove(tmp)
	if err := os.Symlink(rel, tmp); err != nil {
		if err := copyFile(blob, tmp); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, pointer); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename, creating the directory.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// writeRef records that revision rev resolved to commit.
func writeRef(dir, rev, commit string) error {
	if rev == commit {
		return nil
	}
	path := filepath.Join(dir, "refs", filepath.FromSlash(rev))
	if b, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(b)) == commit {
		return nil
	}
	return writeAtomic(path, []byte(commit))
}

// markMissing records, as huggingface_hub does, that file does not exist at
// commit. Failing to record it is harmless.
func markMissing(dir, commit, file string) {
	path := filepath.Join(dir, ".no_exist", commit, file)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		_ = writeAtomic(path, nil)
	}
}
