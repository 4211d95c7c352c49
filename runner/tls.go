package runner

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"time"

	"github.com/aiperf-go/aiperf/internal/secret"
)

// tlsConfig returns the TLS settings of the run's https connections, to
// the benchmarked servers and to their /metrics alike: the system roots
// (which honour SSL_CERT_FILE and SSL_CERT_DIR), plus the certificates of
// --ca-cert, or no verification at all with --insecure. It returns nil
// (Go's defaults) when neither is set.
func tlsConfig(cfg *Config) (*tls.Config, error) {
	if !cfg.Insecure && cfg.CACert == "" {
		return nil, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.Insecure {
		tc.InsecureSkipVerify = true // the user asked: --insecure
		return tc, nil
	}
	pem, err := os.ReadFile(cfg.CACert)
	if err != nil {
		return nil, fmt.Errorf("--ca-cert: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--ca-cert %s: no PEM certificate found", cfg.CACert)
	}
	tc.RootCAs = pool
	return tc, nil
}

// tlsProblems checks --ca-cert up front: the file must hold a PEM
// certificate.
func (c *Config) tlsProblems() []string {
	if c.CACert == "" {
		return nil
	}
	if c.Insecure {
		return []string{"--ca-cert and --insecure contradict each other: --insecure verifies no certificate; give one of them"}
	}
	if _, err := tlsConfig(c); err != nil {
		return []string{fmt.Sprintf("%v: give a PEM file of the CA that signed the server's certificate", err)}
	}
	return nil
}

// checkTLS runs one TLS handshake with base's server, so that a server
// whose certificate is not trusted stops the run with one clear error
// instead of failing every request.
func checkTLS(ctx context.Context, base *url.URL, tc *tls.Config) error {
	addr := hostPort(base.Host, base.Scheme)
	c := &tls.Config{}
	if tc != nil {
		c = tc.Clone()
	}
	c.ServerName = base.Hostname()
	d := tls.Dialer{NetDialer: &net.Dialer{Timeout: 5 * time.Second}, Config: c}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err == nil {
		return conn.Close()
	}
	var (
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
		verify   *tls.CertificateVerificationError
	)
	if errors.As(err, &unknown) || errors.As(err, &invalid) || errors.As(err, &hostname) || errors.As(err, &verify) {
		return fmt.Errorf("the TLS certificate of %s is not trusted (%v): trust its CA with --ca-cert FILE (or SSL_CERT_FILE), or skip verification with --insecure",
			secret.URL(base.String()), err)
	}
	return fmt.Errorf("TLS handshake with %s failed (is it an https server? check --url): %w", addr, err)
}

// hostPort returns host with the scheme's default port when it has none.
func hostPort(host, scheme string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	if scheme == "https" {
		return net.JoinHostPort(host, "443")
	}
	return net.JoinHostPort(host, "80")
}
