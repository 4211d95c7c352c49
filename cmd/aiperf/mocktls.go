package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/mockserver"
)

// mockTLS are the mock-server's TLS flags: --tls (a self-signed
// certificate made at start, written to --tls-cert-out) or --tls-cert and
// --tls-key (given files).
type mockTLS struct {
	selfSigned        bool
	certOut           string
	certFile, keyFile string
}

// config returns the server TLS configuration the flags ask for, nil for
// plain HTTP. host is the --host address, added to the self-signed
// certificate's names. Contradictory flags are a usage error.
func (m mockTLS) config(host string) (*tls.Config, error) {
	files := m.certFile != "" || m.keyFile != ""
	switch {
	case m.selfSigned && files:
		return nil, command.Usage(errors.New("--tls makes its own certificate: give either --tls or --tls-cert and --tls-key"))
	case files && (m.certFile == "" || m.keyFile == ""):
		return nil, command.Usage(errors.New("--tls-cert and --tls-key go together: give both"))
	case m.certOut != "" && !m.selfSigned:
		return nil, command.Usage(errors.New("--tls-cert-out writes the certificate of --tls: add --tls"))
	case files:
		tc, err := mockserver.LoadTLSConfig(m.certFile, m.keyFile)
		if err != nil {
			return nil, command.Usage(fmt.Errorf("--tls-cert/--tls-key: %w", err))
		}
		return tc, nil
	case !m.selfSigned:
		return nil, nil
	}
	certPEM, keyPEM, err := mockserver.SelfSigned(host)
	if err != nil {
		return nil, err
	}
	if m.certOut != "" {
		if err := os.WriteFile(m.certOut, certPEM, 0o644); err != nil {
			return nil, fmt.Errorf("--tls-cert-out: %w", err)
		}
	}
	return mockserver.TLSConfig(certPEM, keyPEM)
}
