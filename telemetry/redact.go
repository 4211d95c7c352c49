package telemetry

import (
	"fmt"
	"net/url"
	"strings"
)

// redacted replaces a credential in a URL that reaches an artifact or a
// log, as AIPerf's REDACTED_VALUE.
const redacted = "<redacted>"

// RedactURL hides the credentials a URL may carry, as AIPerf's redact_url
// does: the userinfo of scheme://user:pass@host (or of a bare
// user:pass@host) becomes "<redacted>", and so do the values of query
// parameters whose names, percent-decoded, look secret (token, key,
// password, …). It works on the text, so a URL that does not parse is
// redacted too; one without credentials comes back unchanged, with no
// allocation.
func RedactURL(raw string) string {
	out := raw
	auth := 0
	if i := strings.Index(out, "://"); i >= 0 {
		auth = i + 3
	}
	end := len(out)
	if j := strings.IndexAny(out[auth:], "/?#"); j >= 0 {
		end = auth + j
	}
	if at := strings.LastIndexByte(out[auth:end], '@'); at >= 0 {
		out = out[:auth] + redacted + out[auth+at:]
	}
	q := strings.IndexByte(out, '?')
	if q < 0 {
		return out
	}
	query, frag := out[q+1:], ""
	if h := strings.IndexByte(query, '#'); h >= 0 {
		query, frag = query[:h], query[h:]
	}
	if !hasSecretParam(query) {
		return out
	}
	parts := strings.Split(query, "&")
	for i, p := range parts {
		if k, _, ok := strings.Cut(p, "="); ok && secretName(k) {
			parts[i] = k + "=" + redacted
		}
	}
	return out[:q+1] + strings.Join(parts, "&") + frag
}

// hasSecretParam reports whether a query has a parameter secretName
// redacts.
func hasSecretParam(query string) bool {
	for query != "" {
		var p string
		p, query, _ = strings.Cut(query, "&")
		if k, _, ok := strings.Cut(p, "="); ok && secretName(k) {
			return true
		}
	}
	return false
}

// secretName reports whether a query parameter name looks like it holds a
// credential, before or after percent-decoding.
func secretName(k string) bool {
	if d, err := url.QueryUnescape(k); err == nil {
		k = d
	}
	k = strings.ToLower(k)
	for _, s := range [...]string{"auth", "token", "secret", "password", "passwd", "credential", "key", "session", "signature", "sig"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// urlError wraps err with rawURL, redacted. When err is a *url.Error (what
// the HTTP client and url.Parse return, whose text quotes the URL with its
// credentials) the error it wraps takes its place.
func urlError(rawURL string, err error) error {
	if ue, ok := err.(*url.Error); ok {
		err = ue.Err
	}
	return fmt.Errorf("%s: %w", RedactURL(rawURL), err)
}
