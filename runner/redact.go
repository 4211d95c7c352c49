package runner

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/telemetry"
)

// Redacted replaces every secret value in stored configuration and logs.
const Redacted = "<redacted>"

// secretName matches header and extra-input names whose values are secrets.
// "token" counts only at the end of a name (access_token, X-Auth-Token,
// hf_token): max_tokens, stop_token_ids and the like are model parameters
// that a run record must keep to be reproduced.
var secretName = regexp.MustCompile(`(?i)(auth|api[-_]?key|(access|private|subscription|secret)[-_]?key|token$|secret|passw|passphrase|cookie|credential|session|signature|bearer)`)

// IsSecretName reports whether a header or field name carries a secret.
func IsSecretName(name string) bool { return secretName.MatchString(strings.TrimSpace(name)) }

// redactHeader returns "Name:<redacted>" for a secret header, else h.
func redactHeader(h string) string {
	name, _, ok := strings.Cut(h, ":")
	if ok && IsSecretName(name) {
		return name + ":" + Redacted
	}
	return h
}

// redactExtra returns an --extra-inputs item with every secret hidden: the
// value of a secret key:value, and the values of secret-named keys at any
// depth of a JSON object or of a JSON value given as key:value. An object
// that does not parse is hidden whole if its text mentions a secret name.
func redactExtra(item string) string {
	s := strings.TrimSpace(item)
	if strings.HasPrefix(s, "{") {
		if out, ok := redactJSON([]byte(s)); ok {
			if string(out) == s {
				return item
			}
			return string(out)
		}
		if secretName.MatchString(s) {
			return Redacted
		}
		return item
	}
	key, value, ok := strings.Cut(item, ":")
	if !ok {
		return item
	}
	if IsSecretName(key) {
		return key + ":" + Redacted
	}
	if v := strings.TrimSpace(value); strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[") {
		if out, ok := redactJSON([]byte(v)); ok {
			if string(out) == v {
				return item
			}
			return key + ":" + string(out)
		} else if secretName.MatchString(v) {
			return key + ":" + Redacted
		}
	}
	return item
}

// Redact returns a copy of c with every secret replaced by Redacted: the API
// key, credentials in the URL, secret-looking headers and extra inputs (at
// any depth). The CLI command line is redacted when it is built (RedactArgs).
func (c Config) Redact() Config {
	if c.APIKey != "" {
		c.APIKey = Redacted
	}
	c.URL = telemetry.RedactURL(c.URL)
	c.Headers = mapStrings(c.Headers, redactHeader)
	c.ExtraInputs = mapStrings(c.ExtraInputs, redactExtra)
	return c
}

func mapStrings(in []string, f func(string) string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = f(s)
	}
	return out
}

// redactFields returns extra body fields with the values of secret-named
// ones, at any depth, replaced by Redacted, and whether any was; the same
// slice when none.
func redactFields(fields []endpoint.Field) ([]endpoint.Field, bool) {
	var out []endpoint.Field
	for i, f := range fields {
		var v json.RawMessage
		if IsSecretName(f.Key) {
			v = json.RawMessage(`"` + Redacted + `"`)
		} else if r, _ := redactJSON(f.Value); !bytes.Equal(r, f.Value) {
			v = r
		} else {
			continue
		}
		if out == nil {
			out = append([]endpoint.Field(nil), fields...)
		}
		out[i].Value = v
	}
	if out == nil {
		return fields, false
	}
	return out, true
}
