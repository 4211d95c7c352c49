//go:build integration

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/minioproc"
)

// fmStore is a store of the fault matrix that the test can take down and
// bring back while a run writes to it.
type fmStore interface {
	name() string
	// url is the --artifact-dir of one cell: a place of its own.
	url(cell string) string
	down(t *testing.T)
	up(t *testing.T)
}

// fmDirStore is a directory store reached through a symlink: down
// atomically points the link at a regular file (nothing under it can be
// read or created, even by root), up points it back at the directory.
type fmDirStore struct{ base string }

func newDirStore(t *testing.T) *fmDirStore {
	s := &fmDirStore{base: t.TempDir()}
	if err := os.WriteFile(filepath.Join(s.base, "blocker"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *fmDirStore) name() string { return "directory" }

func (s *fmDirStore) url(cell string) string { return filepath.Join(s.base, "link-"+cell) }

// repoint atomically points every cell's link at target(link).
func (s *fmDirStore) repoint(t *testing.T, target func(link string) string) {
	links, _ := filepath.Glob(filepath.Join(s.base, "link-*"))
	for _, link := range links {
		if strings.HasSuffix(link, ".dir") || strings.HasSuffix(link, ".tmp") {
			continue
		}
		tmp := link + ".tmp"
		_ = os.Remove(tmp)
		if err := os.Symlink(target(link), tmp); err != nil {
			t.Error(err)
			continue
		}
		if err := os.Rename(tmp, link); err != nil { // atomic
			t.Error(err)
		}
	}
}

func (s *fmDirStore) down(t *testing.T) {
	s.repoint(t, func(string) string { return filepath.Join(s.base, "blocker") })
}

func (s *fmDirStore) up(t *testing.T) {
	s.repoint(t, func(link string) string { return link + ".dir" })
}

// prepare creates a cell's directory and its link (store up).
func (s *fmDirStore) prepare(t *testing.T, cell string) {
	link := s.url(cell)
	if err := os.Mkdir(link+".dir", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(link+".dir", link); err != nil {
		t.Fatal(err)
	}
}

// fmMinIO is the s3 store of the matrix: a private MinIO (never the
// shared one `make integration` starts), so that it can be stopped and
// started again.
type fmMinIO struct{ *minioproc.Server }

// newMinIO starts a private MinIO with a bucket "aiperf".
func newMinIO(t *testing.T) *fmMinIO { return &fmMinIO{minioproc.Start(t)} }

func (m *fmMinIO) name() string           { return "s3" }
func (m *fmMinIO) url(cell string) string { return m.URL(cell) }
func (m *fmMinIO) up(t *testing.T)        { m.Up(t) }

// down kills the server: connections are refused until up.
func (m *fmMinIO) down(*testing.T) { m.Down() }
