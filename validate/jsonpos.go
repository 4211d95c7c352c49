package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
)

// member is a JSON object's member or an array's element with the byte
// offset of its value in the document, for line numbers.
type member struct {
	Key string // "" for an array element
	Off int    // offset of the value's first byte in the document
	Raw json.RawMessage
}

// objectMembers splits the JSON object raw, found at offset base of its
// document, into its members in order.
func objectMembers(raw []byte, base int) ([]member, error) {
	return split(raw, base, '{')
}

// arrayElements splits the JSON array raw, found at offset base of its
// document, into its elements in order.
func arrayElements(raw []byte, base int) ([]member, error) {
	return split(raw, base, '[')
}

func split(raw []byte, base int, open json.Delim) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonError(err)
	}
	if tok != open {
		return nil, fmt.Errorf("want a JSON %s", map[json.Delim]string{'{': "object", '[': "array"}[open])
	}
	var out []member
	for dec.More() {
		var m member
		if open == '{' {
			k, err := dec.Token()
			if err != nil {
				return nil, jsonError(err)
			}
			m.Key, _ = k.(string)
		}
		if err := dec.Decode(&m.Raw); err != nil {
			return nil, jsonError(err)
		}
		m.Off = base + int(dec.InputOffset()) - len(m.Raw)
		out = append(out, m)
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the end of the JSON value")
	}
	return out, nil
}

// jsonError words a decoding error, io.EOF included.
func jsonError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("invalid JSON: unexpected end of input")
	}
	return fmt.Errorf("invalid JSON: %w", err)
}

// objectFile is a JSON object document under check: its path, the line
// of each byte offset, and the Result its problems gather in.
type objectFile struct {
	path string
	ln   lines
	r    Result
}

// readObjectFile reads the JSON document at path and its top-level
// members. ok is false when the file cannot be read (err, wrapped) or is
// not a JSON object (that problem is in f.r).
func readObjectFile(path string) (f *objectFile, top []member, ok bool, err error) {
	f = &objectFile{path: path}
	doc, err := os.ReadFile(path)
	if err != nil {
		return f, nil, false, fmt.Errorf("validate: %w", err)
	}
	f.ln = newLines(doc)
	top, err = objectMembers(doc, 0)
	if err != nil {
		f.problem("", err.Error())
		return f, nil, false, nil
	}
	return f, top, true, nil
}

// bad adds a problem of field at byte offset off of the document.
func (f *objectFile) bad(off int, field, format string, args ...any) {
	f.r.Problems = append(f.r.Problems, Problem{File: f.path, Line: f.ln.at(off), Field: field, Msg: fmt.Sprintf(format, args...)})
}

// problem adds a problem of field ("": of the document) with no line.
func (f *objectFile) problem(field, msg string) {
	f.r.Problems = append(f.r.Problems, Problem{File: f.path, Field: field, Msg: msg})
}

// lines maps byte offsets of a document to 1-based line numbers.
type lines []int // offsets of each '\n'

func newLines(doc []byte) lines {
	var l lines
	for i, c := range doc {
		if c == '\n' {
			l = append(l, i)
		}
	}
	return l
}

// at returns the line holding offset off.
func (l lines) at(off int) int {
	lo, hi := 0, len(l)
	for lo < hi {
		m := (lo + hi) / 2
		if l[m] < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo + 1
}

// kind names the JSON type of raw, for messages.
func kind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// number returns raw as a finite number.
func number(raw json.RawMessage) (float64, bool) {
	if kind(raw) != "a number" {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(raw)), 64)
	return f, err == nil && !math.IsInf(f, 0)
}

// integer returns raw as an integer (a number without a fraction).
func integer(raw json.RawMessage) (int64, bool) {
	f, ok := number(raw)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<63 {
		return 0, false
	}
	if i, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64); err == nil {
		return i, true
	}
	return int64(f), true
}

// str returns raw as a string.
func str(raw json.RawMessage) (string, bool) {
	var s string
	if kind(raw) != "a string" || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
