// Package minioproc runs a private MinIO server for tests that stop and
// restart their store (fault injection): its own process on a free port,
// with a bucket "aiperf", never the shared server `make integration`
// starts. The binary comes from AIPERF_TEST_MINIO_BIN and the root
// credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY
// (scripts/emulators.sh env).
package minioproc

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Server is a private MinIO process. Its methods are for the test's own
// goroutine.
type Server struct {
	bin, data string
	port      int
	cmd       *exec.Cmd
}

// Start starts a private MinIO, stopped when t ends. Without
// AIPERF_TEST_MINIO_BIN it skips t, or fails it when
// AIPERF_TEST_REQUIRE_STORES is set.
func Start(t testing.TB) *Server {
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
	m := &Server{bin: bin, data: t.TempDir(), port: port}
	if err := os.Mkdir(filepath.Join(m.data, "aiperf"), 0o755); err != nil { // the bucket
		t.Fatal(err)
	}
	m.Up(t)
	t.Cleanup(m.Down)
	return m
}

// Endpoint is the server's S3 endpoint, http://127.0.0.1:PORT.
func (m *Server) Endpoint() string { return fmt.Sprintf("http://127.0.0.1:%d", m.port) }

// URL is the s3:// store URL of the bucket under prefix/, with extra
// query parameters ("key=value") appended.
func (m *Server) URL(prefix string, extra ...string) string {
	u := "s3://aiperf?endpoint=" + m.Endpoint() + "&use_path_style=true&region=us-east-1&prefix=" + prefix + "/"
	for _, e := range extra {
		u += "&" + e
	}
	return u
}

// Up starts the server, if it is stopped, and waits until it is ready.
func (m *Server) Up(t testing.TB) {
	t.Helper()
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

// Down kills the server: connections are refused until Up.
func (m *Server) Down() {
	if m.cmd != nil && m.cmd.Process != nil {
		_ = m.cmd.Process.Kill()
		_ = m.cmd.Wait()
	}
	m.cmd = nil
}
