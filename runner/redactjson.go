package runner

import (
	"bytes"
	"encoding/json"
	"errors"
)

// redactJSON returns a compact copy of the JSON value raw in which the value
// of every object member whose name IsSecretName, in objects at any depth
// (arrays of objects included), is the string Redacted. Member order and
// number text are kept. It returns raw itself when no member is secret,
// and ok false (with raw) when raw is not one valid JSON value.
func redactJSON(raw []byte) (out []byte, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var buf bytes.Buffer
	n := 0
	if err := redactValue(dec, &buf, &n); err != nil {
		return raw, false
	}
	if _, err := dec.Token(); err == nil {
		return raw, false // trailing data: not one value
	}
	if n == 0 {
		return raw, true
	}
	return buf.Bytes(), true
}

var errNotJSON = errors.New("not a JSON value")

// redactValue copies the next JSON value from dec to w, redacting secret
// members of the objects in it and counting them in n.
func redactValue(dec *json.Decoder, w *bytes.Buffer, n *int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, isDelim := tok.(json.Delim)
	if !isDelim {
		return writeScalar(w, tok)
	}
	switch d {
	case '{':
		w.WriteByte('{')
		for i := 0; dec.More(); i++ {
			if i > 0 {
				w.WriteByte(',')
			}
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := kt.(string)
			if err := writeScalar(w, key); err != nil {
				return err
			}
			w.WriteByte(':')
			if IsSecretName(key) {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return err
				}
				w.WriteString(`"` + Redacted + `"`)
				*n++
				continue
			}
			if err := redactValue(dec, w, n); err != nil {
				return err
			}
		}
		w.WriteByte('}')
	case '[':
		w.WriteByte('[')
		for i := 0; dec.More(); i++ {
			if i > 0 {
				w.WriteByte(',')
			}
			if err := redactValue(dec, w, n); err != nil {
				return err
			}
		}
		w.WriteByte(']')
	default:
		return errNotJSON
	}
	_, err = dec.Token() // the closing delimiter
	return err
}

// writeScalar writes a string, number, boolean or null token as JSON,
// without escaping HTML characters (the stored text stays readable).
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
