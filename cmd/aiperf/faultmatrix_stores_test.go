//go:build integration

package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// fmMinIO is a MinIO server of this test's own (never the shared one
// `make integration` starts), on a free port, so that it can be stopped
// and started again.
type fmMinIO struct {
	bin, data string
	port      int
	cmd       *exec.Cmd
}

// newMinIO starts a private MinIO with a bucket "aiperf" from
// AIPERF_TEST_MINIO_BIN (scripts/emulators.sh env).
func newMinIO(t *testing.T) *fmMinIO {
	t.Helper()
	bin := os.Getenv("AIPERF_TEST_MINIO_BIN")
	if bin == "" {
		if os.Getenv("AIPERF_TEST_REQUIRE_STORES") != "" {
			t.Fatal("AIPERF_TEST_MINIO_BIN is not set: start the servers with scripts/emulators.sh")
		}
		t.Skip("AIPERF_TEST_MINIO_BIN not set (scripts/emulators.sh env)")
	}
	if os.Getenv("AWS_ACCESS_KEY_ID") == "" || os.Getenv("AWS_SECRET_ACCESS_KEY") == "" {
		t.Fatal("AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY are not set (scripts/emulators.sh env)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	m := &fmMinIO{bin: bin, data: t.TempDir(), port: port}
	if err := os.Mkdir(filepath.Join(m.data, "aiperf"), 0o755); err != nil { // the bucket
		t.Fatal(err)
	}
	m.up(t)
	t.Cleanup(m.stop)
	return m
}

func (m *fmMinIO) name() string { return "s3" }

func (m *fmMinIO) url(cell string) string {
	return fmt.Sprintf("s3://aiperf?endpoint=http://127.0.0.1:%d&use_path_style=true&region=us-east-1&prefix=%s/", m.port, cell)
}

// up starts the server (if stopped) and waits until it is ready.
func (m *fmMinIO) up(t *testing.T) {
	if m.cmd != nil {
		return
	}
	m.cmd = exec.Command(m.bin, "server", m.data, "--address", fmt.Sprintf("127.0.0.1:%d", m.port),
		"--console-address", "127.0.0.1:0", "--quiet")
	m.cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+os.Getenv("AWS_ACCESS_KEY_ID"),
		"MINIO_ROOT_PASSWORD="+os.Getenv("AWS_SECRET_ACCESS_KEY"), "MINIO_UPDATE=off")
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := fmt.Sprintf("http://127.0.0.1:%d/minio/health/ready", m.port)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); {
		if resp, err := http.Get(ready); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("minio did not become ready in 60 s")
}

// down kills the server: connections are refused until up.
func (m *fmMinIO) down(*testing.T) { m.stop() }

func (m *fmMinIO) stop() {
	if m.cmd != nil && m.cmd.Process != nil {
		_ = m.cmd.Process.Kill()
		_ = m.cmd.Wait()
	}
	m.cmd = nil
}
