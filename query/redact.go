package query

import (
	"bytes"

	"github.com/aiperf-go/aiperf/internal/secret"
)

// Runs stored by older aiperf-go versions or by Python AIPerf may hold
// secrets that today's runner redacts before it stores them: API keys,
// secret headers and extra inputs, credentials in URLs and command lines.
// The loader hides them at ingest, so no query or report shows them: the
// JSON documents of a run (redactRun, updateProvenance) through
// secret.Document, its URL columns and the endpoint URLs of its telemetry
// lines (urlRedactor) through secret.URL. Request records are not
// rewritten: they hold no configuration.

// redactRun hides the secrets of a run's row before it is inserted.
func redactRun(r *runRow) {
	r.Source = secret.URL(r.Source)
	r.Manifest = redactDocument(r.Manifest)
	r.InputConfig = redactDocument(r.InputConfig)
	r.Labels = redactDocument(r.Labels)
}

// redactDocument returns a JSON document with its secrets hidden (itself
// when it has none, or is nil or not JSON: the insert then rejects it).
func redactDocument(doc []byte) []byte {
	if doc == nil {
		return nil
	}
	out, _ := secret.Document(doc)
	return out
}

// urlRedactor hides the credentials of the endpoint URLs of telemetry
// lines. A URL without '@' or '?' has none and costs two byte scans; the
// last one redacted is remembered, as a file's lines share one endpoint.
type urlRedactor struct {
	raw, out []byte
}

// redact returns v with its credentials hidden: v itself when it has
// none, else bytes valid until the next call.
func (u *urlRedactor) redact(v []byte) []byte {
	if bytes.IndexByte(v, '@') < 0 && bytes.IndexByte(v, '?') < 0 {
		return v
	}
	if u.out == nil || !bytes.Equal(v, u.raw) {
		u.raw = append(u.raw[:0], v...)
		u.out = []byte(secret.URL(string(v)))
	}
	return u.out
}
