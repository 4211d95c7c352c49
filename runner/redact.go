package runner

import (
	"bytes"
	"encoding/json"

	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/internal/secret"
)

// Redact returns a copy of c with every secret replaced by secret.Redacted:
// the API key, credentials in the URL, secret-looking headers and extra
// inputs (at any depth). The CLI command line is redacted when it is built
// (secret.Args).
func (c Config) Redact() Config {
	if c.APIKey != "" {
		c.APIKey = secret.Redacted
	}
	c.URL = secret.URL(c.URL)
	c.URLs = mapStrings(c.URLs, secret.URL)
	c.Headers = mapStrings(c.Headers, secret.Header)
	c.ExtraInputs = mapStrings(c.ExtraInputs, secret.Extra)
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
// ones, at any depth, replaced by secret.Redacted, and whether any was;
// the same slice when none.
func redactFields(fields []endpoint.Field) ([]endpoint.Field, bool) {
	var out []endpoint.Field
	for i, f := range fields {
		var v json.RawMessage
		if secret.IsName(f.Key) {
			v = json.RawMessage(`"` + secret.Redacted + `"`)
		} else if r, _ := secret.JSON(f.Value); !bytes.Equal(r, f.Value) {
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

// ShellQuote renders the command line as AIPerf prints it: flag names and
// numbers bare, other values in single quotes (secret.Quote).
func ShellQuote(args []string) string { return secret.Quote(args) }
