package secret

import (
	"regexp"
	"strings"
	"sync"
)

// Redacted replaces every secret value in stored configuration, logs and
// reports, as AIPerf's REDACTED_VALUE.
const Redacted = "<redacted>"

// secretName matches header and extra-input names whose values are secrets.
// "token" counts only at the end of a name (access_token, X-Auth-Token,
// hf_token): max_tokens, stop_token_ids and the like are model parameters
// that a run record must keep to be reproduced. This package's patterns are
// compiled on first use, so that commands that redact nothing (aiperf
// version, --help) do not pay for them at start-up.
var secretName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(auth|api[-_]?key|(access|private|subscription|secret)[-_]?key|token$|secret|passw|passphrase|cookie|credential|session|signature|bearer)`)
})

// IsName reports whether a header, field or JSON member name carries a
// secret.
func IsName(name string) bool { return secretName().MatchString(strings.TrimSpace(name)) }

// secretText is secretName for a name inside a longer text, where "token"
// ends a name when no letter or underscore follows (hf_token", not
// max_tokens or stop_token_ids).
var secretText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(strings.Replace(secretName().String(), "token$", "token([^a-z_]|$)", 1))
})

// mentionsName reports whether text mentions a secret name anywhere.
func mentionsName(text string) bool { return secretText().MatchString(text) }

// Header returns "Name:<redacted>" for a "Name: value" header whose name
// IsName, else h itself.
func Header(h string) string {
	name, _, ok := strings.Cut(h, ":")
	if ok && IsName(name) {
		return name + ":" + Redacted
	}
	return h
}

// Extra returns an --extra-inputs item with every secret hidden: the
// value of a secret key:value, and the values of secret-named keys at any
// depth of a JSON object or of a JSON value given as key:value. An object
// that does not parse is hidden whole if its text mentions a secret name.
// An item without secrets comes back unchanged.
func Extra(item string) string {
	s := strings.TrimSpace(item)
	if strings.HasPrefix(s, "{") {
		if out, ok := JSON([]byte(s)); ok {
			if string(out) == s {
				return item
			}
			return string(out)
		}
		if mentionsName(s) {
			return Redacted
		}
		return item
	}
	key, value, ok := strings.Cut(item, ":")
	if !ok {
		return item
	}
	if IsName(key) {
		return key + ":" + Redacted
	}
	if v := strings.TrimSpace(value); strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[") {
		if out, ok := JSON([]byte(v)); ok {
			if string(out) == v {
				return item
			}
			return key + ":" + string(out)
		} else if mentionsName(v) {
			return key + ":" + Redacted
		}
	}
	return item
}
