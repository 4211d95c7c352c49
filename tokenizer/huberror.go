package tokenizer

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// networkError is a hub request that got no answer (or a cut-off one):
// the case where an online load falls back on the cache.
type networkError struct {
	op  string
	err error
}

func (e *networkError) Error() string { return e.op + ": " + e.err.Error() }
func (e *networkError) Unwrap() error { return e.err }

// notFoundError is a file the hub says does not exist at a revision that
// does (HTTP 404 with X-Error-Code EntryNotFound, or with no code).
type notFoundError struct {
	msg string
}

func (e *notFoundError) Error() string { return e.msg }

// statusError turns a hub's error response into a message that says what
// went wrong and what to do (Load prefixes the model's name). The hub's X-Error-Code tells a missing file,
// revision and repository apart; HEAD responses have no body, so the
// X-Error-Message header is the hub's own explanation. The token is never
// part of the message.
func (h *hub) statusError(resp *http.Response, repo, rev, file string) error {
	code := resp.Header.Get("X-Error-Code")
	page := h.endpoint.String() + "/" + repo
	var msg string
	switch {
	case code == "RevisionNotFound":
		msg = fmt.Sprintf("revision %q does not exist (HTTP %d); check --tokenizer-revision",
			rev, resp.StatusCode)
	case code == "RepoNotFound":
		msg = fmt.Sprintf("no such model on %s (HTTP %d)", h.endpoint, resp.StatusCode)
		if h.token == "" {
			msg += "; if it is private, set HF_TOKEN"
		} else {
			msg += ", or it is private and HF_TOKEN's account has no access"
		}
	case code == "GatedRepo" || resp.StatusCode == http.StatusForbidden:
		msg = fmt.Sprintf("the model is gated or restricted (HTTP %d): ", resp.StatusCode)
		if h.token == "" {
			msg += fmt.Sprintf("request access at %s, then set HF_TOKEN to a token of that account", page)
		} else {
			msg += fmt.Sprintf("HF_TOKEN's account has no access yet; request it at %s", page)
		}
	case resp.StatusCode == http.StatusUnauthorized:
		if h.token == "" {
			msg = "the model needs authentication (HTTP 401): it is private or gated, " +
				"or does not exist; set HF_TOKEN to a token with access"
		} else {
			msg = "HF_TOKEN was rejected (HTTP 401): the token is invalid, " +
				"or the model does not exist or is private to another account"
		}
	case resp.StatusCode == http.StatusNotFound:
		return &notFoundError{msg: fmt.Sprintf("the model has no %s at revision %q (HTTP 404); "+
			"only Hugging Face fast tokenizers (tokenizer.json) are supported", file, rev)}
	default:
		msg = fmt.Sprintf("%s: HTTP %d", h.resolveURL(repo, rev, file), resp.StatusCode)
	}
	if m := serverMessage(resp); m != "" {
		msg += " (hub: " + m + ")"
	}
	return errors.New(msg)
}

// serverMessage is the hub's X-Error-Message, on one line and at most 300
// bytes.
func serverMessage(resp *http.Response) string {
	m := strings.Join(strings.Fields(resp.Header.Get("X-Error-Message")), " ")
	if len(m) > 300 {
		m = m[:300] + "…"
	}
	return m
}
