// Package secret hides secrets (API keys, secret headers and extra inputs,
// credentials in URLs and command lines) in text that reaches a run's
// artifacts, its logs or a report. Every function returns its input
// unchanged when it holds no secret, so callers may redact unconditionally.
package secret
