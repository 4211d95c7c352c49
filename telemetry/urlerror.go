package telemetry

import (
	"fmt"
	"net/url"

	"github.com/aiperf-go/aiperf/internal/secret"
)

// urlError wraps err with rawURL, redacted. When err is a *url.Error (what
// the HTTP client and url.Parse return, whose text quotes the URL with its
// credentials) the error it wraps takes its place.
func urlError(rawURL string, err error) error {
	if ue, ok := err.(*url.Error); ok {
		err = ue.Err
	}
	return fmt.Errorf("%s: %w", secret.URL(rawURL), err)
}
