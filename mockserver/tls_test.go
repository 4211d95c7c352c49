package mockserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTLSServesHTTPS: with Config.TLS the server speaks HTTPS only, under a
// SelfSigned certificate that a client trusting it verifies, for
// 127.0.0.1 and localhost; LoadTLSConfig reads the same pair from files.
func TestTLSServesHTTPS(t *testing.T) {
	certPEM, keyPEM, err := SelfSigned("example.test")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	tc, err := LoadTLSConfig(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{Addr: "127.0.0.1:0", TLS: tc})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if !strings.HasPrefix(srv.URL(), "https://127.0.0.1:") {
		t.Fatalf("url %s", srv.URL())
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	t.Cleanup(client.CloseIdleConnections)
	for _, u := range []string{srv.URL(), strings.Replace(srv.URL(), "127.0.0.1", "localhost", 1)} {
		resp, err := client.Get(u + "/health")
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.TLS == nil || resp.Proto != "HTTP/1.1" {
			t.Fatalf("%s: status %d, tls %v, proto %s", u, resp.StatusCode, resp.TLS != nil, resp.Proto)
		}
	}
	if _, err := http.Get(srv.URL() + "/health"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("a client without the CA: %v", err)
	}
	if _, err := TLSConfig(certPEM, certPEM); err == nil {
		t.Fatal("a certificate as its own key was accepted")
	}
}
