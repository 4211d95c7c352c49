package runner

import (
	"encoding/json"
	"slices"

	"regexp"
	"strings"

	"github.com/aiperf-go/aiperf/endpoint"
)

// Redacted replaces every secret value in stored configuration and logs.
const Redacted = "<redacted>"

// secretName matches header and extra-input names whose values are secrets.
var secretName = regexp.MustCompile(`(?i)(auth|api[-_]?key|token|secret|passw|cookie|credential|session|signature)`)

// IsSecretName reports whether a header or field name carries a secret.
func IsSecretName(name string) bool { return secretName.MatchString(name) }

// redactHeader returns "Name:<redacted>" for a secret header, else h.
func redactHeader(h string) string {
	name, _, ok := strings.Cut(h, ":")
	if ok && IsSecretName(name) {
		return name + ":" + Redacted
	}
	return h
}

// redactExtra returns a "key:value" extra input with a secret value hidden.
// JSON-object items are redacted key by key by the caller's marshalling, so
// a whole object whose text mentions a secret name is hidden entirely.
func redactExtra(item string) string {
	s := strings.TrimSpace(item)
	if strings.HasPrefix(s, "{") {
		if secretName.MatchString(s) {
			return Redacted
		}
		return item
	}
	return redactHeader(item)
}

// Redact returns a copy of c with every secret replaced by Redacted: the API
// key, secret-looking headers and extra inputs, and the CLI command line.
func (c Config) Redact() Config {
	if c.APIKey != "" {
		c.APIKey = Redacted
	}
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

// RedactArgs returns the command-line arguments with the values of secret
// flags (--api-key, secret headers and extra inputs) replaced by Redacted.
// It understands "--flag value" and "--flag=value".
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	copy(out, args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		name, val, hasEq := strings.Cut(a, "=")
		var redact func(string) string
		switch name {
		case "--api-key":
			redact = func(string) string { return Redacted }
		case "-H", "--header":
			redact = redactHeader
		case "--extra-inputs":
			redact = redactExtra
		default:
			continue
		}
		if hasEq {
			out[i] = name + "=" + redact(val)
		} else if i+1 < len(out) {
			out[i+1] = redact(out[i+1])
			i++
		}
	}
	return out
}

// number matches a plain decimal number, which AIPerf prints unquoted.
var number = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)

// ShellQuote renders the command line as AIPerf prints it: flag names and
// numbers bare, other values in single quotes.
func ShellQuote(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if number.MatchString(a) || strings.HasPrefix(a, "-") || a == "aiperf" || a == "profile" {
			b.WriteString(a)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(a, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}

// redactFields returns extra body fields with the values of secret-named
// ones replaced by Redacted, and whether any was; the same slice when none.
func redactFields(fields []endpoint.Field) ([]endpoint.Field, bool) {
	out := fields
	for i, f := range fields {
		if !IsSecretName(f.Key) {
			continue
		}
		if &out[0] == &fields[0] {
			out = slices.Clone(fields)
		}
		out[i].Value = json.RawMessage(`"` + Redacted + `"`)
	}
	return out, len(out) > 0 && &out[0] != &fields[0]
}
