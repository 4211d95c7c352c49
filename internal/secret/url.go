package secret

import (
	"net/url"
	"strings"
)

// URL hides the credentials a URL may carry, as AIPerf's redact_url
// does: the userinfo of scheme://user:pass@host (or of a bare
// user:pass@host) becomes Redacted, and so do the values of query
// parameters whose names, percent-decoded, look secret (token, key,
// password, …). It works on the text, so a URL that does not parse is
// redacted too; one without credentials comes back unchanged, with no
// allocation.
func URL(raw string) string {
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
		out = out[:auth] + Redacted + out[auth+at:]
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
		if k, _, ok := strings.Cut(p, "="); ok && isParamName(k) {
			parts[i] = k + "=" + Redacted
		}
	}
	return out[:q+1] + strings.Join(parts, "&") + frag
}

// hasSecretParam reports whether a query has a parameter isParamName
// redacts.
func hasSecretParam(query string) bool {
	for query != "" {
		var p string
		p, query, _ = strings.Cut(query, "&")
		if k, _, ok := strings.Cut(p, "="); ok && isParamName(k) {
			return true
		}
	}
	return false
}

// isParamName reports whether a query parameter name looks like it holds
// a credential, before or after percent-decoding. It is broader than
// IsName ("key", "sig"), as AIPerf's rule for URLs is.
func isParamName(k string) bool {
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
