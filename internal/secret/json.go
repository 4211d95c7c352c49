package secret

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"sync"
)

// JSON returns a compact copy of the JSON value raw in which the value of
// every object member whose name IsName, in objects at any depth (arrays
// of objects included), is the string Redacted. Member order and number
// text are kept. It returns raw itself when no member is secret, and ok
// false (with raw) when raw is not one valid JSON value.
func JSON(raw []byte) (out []byte, ok bool) { return redact(raw, false) }

// Document is JSON for a stored document (a manifest, an input_config, a
// summary) that an older aiperf-go or Python AIPerf may have written
// without redacting it: besides secret-named members, it hides the
// credentials of every string holding "://" (URL) and of the strings of
// members named url, urls or *_url, the secrets of the command lines in
// members named cli_command or command (CommandLine), of "Name: value"
// strings in arrays named headers (Header), and of "key:value" strings and
// [key, value] pairs in extra_inputs or extra (Extra). Member order and
// number text are kept; raw itself comes back when nothing is secret, and
// ok is false (with raw) when raw is not one valid JSON value.
func Document(raw []byte) (out []byte, ok bool) { return redact(raw, true) }

// redact parses raw, redacts it and writes it back compact when anything
// changed.
func redact(raw []byte, doc bool) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := parse(dec)
	if err != nil {
		return raw, false
	}
	if _, err := dec.Token(); err == nil {
		return raw, false // trailing data: not one value
	}
	r := redactor{doc: doc}
	r.value(v, plain)
	if r.n == 0 {
		return raw, true
	}
	var buf bytes.Buffer
	if err := v.write(&buf); err != nil {
		return raw, false
	}
	return buf.Bytes(), true
}

// node is a parsed JSON value; an object keeps its members in order.
type node struct {
	tok  json.Token // a scalar: string, json.Number, bool or nil
	kind json.Delim // '{' or '[' for a container, 0 for a scalar
	keys []string   // an object's member names
	vals []*node    // an object's member values or an array's elements
}

var errNotJSON = errors.New("not a JSON value")

// parse reads the next JSON value of dec.
func parse(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, isDelim := tok.(json.Delim)
	if !isDelim {
		return &node{tok: tok}, nil
	}
	if d != '{' && d != '[' {
		return nil, errNotJSON
	}
	n := &node{kind: d}
	for dec.More() {
		if d == '{' {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ := kt.(string)
			n.keys = append(n.keys, key)
		}
		v, err := parse(dec)
		if err != nil {
			return nil, err
		}
		n.vals = append(n.vals, v)
	}
	_, err = dec.Token() // the closing delimiter
	return n, err
}

// write writes n as compact JSON, without escaping HTML characters (the
// stored text stays readable).
func (n *node) write(w *bytes.Buffer) error {
	switch n.kind {
	case 0:
		return writeScalar(w, n.tok)
	case '{':
		w.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				w.WriteByte(',')
			}
			if err := writeScalar(w, k); err != nil {
				return err
			}
			w.WriteByte(':')
			if err := n.vals[i].write(w); err != nil {
				return err
			}
		}
		w.WriteByte('}')
	default:
		w.WriteByte('[')
		for i, v := range n.vals {
			if i > 0 {
				w.WriteByte(',')
			}
			if err := v.write(w); err != nil {
				return err
			}
		}
		w.WriteByte(']')
	}
	return nil
}

// writeScalar writes a string, number, boolean or null token as JSON.
func writeScalar(w *bytes.Buffer, tok any) error {
	if n, ok := tok.(json.Number); ok {
		w.WriteString(n.String())
		return nil
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tok); err != nil {
		return err
	}
	w.Truncate(w.Len() - 1) // Encode's newline
	return nil
}

// role is what the strings of a member hold, from its name (Document).
type role int

const (
	plain role = iota
	urlRole
	commandRole
	headerRole
	extraRole
)

// memberRole returns the role of the strings under a member named key.
func memberRole(key string) role {
	k := strings.ToLower(key)
	switch {
	case k == "cli_command" || k == "command":
		return commandRole
	case k == "headers" || k == "header":
		return headerRole
	case k == "extra_inputs" || k == "extra":
		return extraRole
	case k == "url" || k == "urls" || strings.HasSuffix(k, "_url") || strings.HasSuffix(k, "_urls"):
		return urlRole
	}
	return plain
}

// redactor redacts a parsed value in place, counting its changes in n.
type redactor struct {
	doc bool
	n   int
}

// value redacts v, whose strings play role r.
func (rd *redactor) value(v *node, r role) {
	switch v.kind {
	case '{':
		for i, k := range v.keys {
			if IsName(k) {
				rd.hide(v.vals[i])
				continue
			}
			child := plain
			if rd.doc {
				child = memberRole(k)
			}
			rd.value(v.vals[i], child)
		}
	case '[':
		for _, e := range v.vals {
			// A [key, value] pair of extra inputs (Python AIPerf's
			// list of tuples) hides a secret key's value.
			if r == extraRole && e.kind == '[' && len(e.vals) == 2 {
				if k, ok := e.vals[0].tok.(string); ok && e.vals[0].kind == 0 && IsName(k) {
					rd.hide(e.vals[1])
					continue
				}
			}
			rd.value(e, r)
		}
	default:
		s, ok := v.tok.(string)
		if !ok || !rd.doc {
			return
		}
		out := s
		switch r {
		case urlRole:
			out = URL(out)
		case commandRole:
			out = CommandLine(out)
		case headerRole:
			out = Header(out)
		case extraRole:
			out = Extra(out)
		}
		if strings.Contains(out, "://") {
			out = urlsIn(out)
		}
		if out != s {
			v.tok = out
			rd.n++
		}
	}
}

// hide makes v the string Redacted, unless it already is.
func (rd *redactor) hide(v *node) {
	if s, ok := v.tok.(string); ok && v.kind == 0 && s == Redacted {
		return
	}
	*v = node{tok: Redacted}
	rd.n++
}

// urlField matches a whitespace-delimited field that holds a URL.
var urlField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\S*://\S*`) })

// urlsIn hides the credentials of every URL in s: s itself when it is one
// word, else each word holding "://" (free text keeps its other words).
func urlsIn(s string) string {
	if !strings.ContainsAny(s, " \t\r\n") {
		return URL(s)
	}
	return urlField().ReplaceAllStringFunc(s, URL)
}
