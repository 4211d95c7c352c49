// Package mocktest starts the built-in mock server for the tests of other
// packages.
package mocktest

import (
	"context"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
)

// Start starts a mock server with cfg on a free loopback port (cfg.Addr is
// ignored) and returns it; the server closes when the test ends. A server
// that cannot start fails the test.
func Start(tb testing.TB, cfg mockserver.Config) *mockserver.Server {
	tb.Helper()
	cfg.Addr = "127.0.0.1:0"
	srv, err := mockserver.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	return srv
}
