package export

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// indentWriter builds JSON the way Python's json.dumps(indent=2) and
// pydantic's model_dump_json(indent=2) lay it out: two spaces per level,
// ": " after keys, "[]" and "{}" for empty containers, floats in Python's
// repr. Arbitrary Go values go through encodeValue (reflection, for the
// once-per-run summary only); json.RawMessage and other json.Marshalers are
// re-laid out by appendIndentedRaw, keeping their number literals as written.
type indentWriter struct {
	b []byte
}

func (w *indentWriter) newline(depth int) {
	w.b = append(w.b, '\n')
	for range depth {
		w.b = append(w.b, ' ', ' ')
	}
}

// key writes the separator before an object member, the member's name and ": ".
func (w *indentWriter) key(first bool, depth int, name string) {
	if !first {
		w.b = append(w.b, ',')
	}
	w.newline(depth)
	w.b = pyjson.AppendString(w.b, name)
	w.b = append(w.b, ':', ' ')
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// encodeValue appends v at nesting depth. It follows encoding/json's rules
// for struct tags (name, omitempty, omitzero, "-"), embedded structs, map key
// order (sorted) and nil slices and maps (null), but formats floats like
// Python and does not escape HTML characters.
func (w *indentWriter) encodeValue(v reflect.Value, depth int) error {
	if !v.IsValid() {
		w.b = append(w.b, "null"...)
		return nil
	}
	t := v.Type()
	if t.Implements(marshalerType) && (v.Kind() != reflect.Pointer || !v.IsNil()) &&
		(v.Kind() != reflect.Interface || !v.IsNil()) {
		raw, err := v.Interface().(json.Marshaler).MarshalJSON()
		if err != nil {
			return fmt.Errorf("marshal %s: %w", t, err)
		}
		return w.appendIndentedRaw(raw, depth)
	}
	if v.Kind() != reflect.Pointer && v.CanAddr() && reflect.PointerTo(t).Implements(marshalerType) {
		return w.encodeValue(v.Addr(), depth)
	}
	if t.Implements(textMarshalerType) && (v.Kind() != reflect.Pointer || !v.IsNil()) {
		text, err := v.Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			return fmt.Errorf("marshal %s: %w", t, err)
		}
		w.b = pyjson.AppendString(w.b, string(text))
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			w.b = append(w.b, "null"...)
			return nil
		}
		return w.encodeValue(v.Elem(), depth)
	case reflect.Bool:
		w.b = strconv.AppendBool(w.b, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.b = strconv.AppendInt(w.b, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w.b = strconv.AppendUint(w.b, v.Uint(), 10)
	case reflect.Float32:
		w.b = pyjson.AppendFloatBits(w.b, v.Float(), 32)
	case reflect.Float64:
		w.b = pyjson.AppendFloat(w.b, v.Float())
	case reflect.String:
		w.b = pyjson.AppendString(w.b, v.String())
	case reflect.Slice:
		if v.IsNil() {
			w.b = append(w.b, "null"...)
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			w.b = pyjson.AppendString(w.b, base64.StdEncoding.EncodeToString(v.Bytes()))
			return nil
		}
		return w.encodeList(v, depth)
	case reflect.Array:
		return w.encodeList(v, depth)
	case reflect.Map:
		return w.encodeMap(v, depth)
	case reflect.Struct:
		return w.encodeStruct(v, depth)
	default:
		return fmt.Errorf("unsupported type %s", t)
	}
	return nil
}

func (w *indentWriter) encodeList(v reflect.Value, depth int) error {
	if v.Len() == 0 {
		w.b = append(w.b, '[', ']')
		return nil
	}
	w.b = append(w.b, '[')
	for i := range v.Len() {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.newline(depth + 1)
		if err := w.encodeValue(v.Index(i), depth+1); err != nil {
			return err
		}
	}
	w.newline(depth)
	w.b = append(w.b, ']')
	return nil
}

func (w *indentWriter) encodeMap(v reflect.Value, depth int) error {
	if v.IsNil() {
		w.b = append(w.b, "null"...)
		return nil
	}
	if v.Len() == 0 {
		w.b = append(w.b, '{', '}')
		return nil
	}
	type entry struct {
		name string
		val  reflect.Value
	}
	entries := make([]entry, 0, v.Len())
	iter := v.MapRange()
	for iter.Next() {
		name, err := mapKeyName(iter.Key())
		if err != nil {
			return err
		}
		entries = append(entries, entry{name, iter.Value()})
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	w.b = append(w.b, '{')
	for i, e := range entries {
		w.key(i == 0, depth+1, e.name)
		if err := w.encodeValue(e.val, depth+1); err != nil {
			return err
		}
	}
	w.newline(depth)
	w.b = append(w.b, '}')
	return nil
}

func mapKeyName(k reflect.Value) (string, error) {
	if k.Kind() == reflect.String {
		return k.String(), nil
	}
	if tm, ok := k.Interface().(encoding.TextMarshaler); ok {
		text, err := tm.MarshalText()
		return string(text), err
	}
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(k.Uint(), 10), nil
	}
	return "", fmt.Errorf("unsupported map key type %s", k.Type())
}

// structField is one JSON member of a struct: its name and how to reach it.
type structField struct {
	name      string
	index     []int
	omitEmpty bool
	omitZero  bool
}

// fieldsOf lists t's JSON members in declaration order, inlining untagged
// embedded structs the way encoding/json does (without its conflict rules:
// the shallower field wins only by coming first).
func fieldsOf(t reflect.Type, prefix []int, out []structField) []structField {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		index := append(slices.Clone(prefix), i)
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			out = fieldsOf(ft, index, out)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, structField{
			name:      name,
			index:     index,
			omitEmpty: strings.Contains(","+opts+",", ",omitempty,"),
			omitZero:  strings.Contains(","+opts+",", ",omitzero,"),
		})
	}
	return out
}

func (w *indentWriter) encodeStruct(v reflect.Value, depth int) error {
	w.b = append(w.b, '{')
	first := true
	for _, f := range fieldsOf(v.Type(), nil, nil) {
		fv, err := v.FieldByIndexErr(f.index)
		if err != nil {
			continue // nil embedded pointer: its fields are absent
		}
		if (f.omitEmpty && isEmptyValue(fv)) || (f.omitZero && fv.IsZero()) {
			continue
		}
		w.key(first, depth+1, f.name)
		first = false
		if err := w.encodeValue(fv, depth+1); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	if first {
		w.b = append(w.b, '}')
		return nil
	}
	w.newline(depth)
	w.b = append(w.b, '}')
	return nil
}

func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// errInvalidJSON reports raw JSON that does not parse.
var errInvalidJSON = errors.New("invalid JSON")

// appendIndentedRaw re-lays out the JSON text raw at nesting depth. Number
// literals are kept as written (so "550.0" stays "550.0"); strings are
// re-escaped like appendJSONString, so "\u003c" from encoding/json becomes "<".
//
// Validation is fastjson's (several times faster than encoding/json's on
// the long prompts of inputs.json), which accepts what encoding/json does
// except raw control characters in strings: str rejects those
// (FuzzAppendIndentedRaw holds the two to the same verdicts).
func (w *indentWriter) appendIndentedRaw(raw []byte, depth int) error {
	if fastjson.ValidateBytes(raw) != nil {
		return errInvalidJSON
	}
	r := rawScanner{src: raw}
	return r.value(w, depth)
}

// rawScanner walks JSON text that json.Valid has accepted.
type rawScanner struct {
	src  []byte
	pos  int
	nest int // open objects and arrays
}

// maxNesting is encoding/json's limit on nested objects and arrays, which
// appendIndentedRaw keeps so that its verdicts match json.Valid's (fastjson
// validates any depth). A variable for tests.
var maxNesting = 10000

func (r *rawScanner) skipSpace() {
	for r.pos < len(r.src) {
		switch r.src[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

func (r *rawScanner) value(w *indentWriter, depth int) error {
	r.skipSpace()
	switch c := r.src[r.pos]; c {
	case '{', '[':
		if r.nest++; r.nest > maxNesting {
			return errInvalidJSON
		}
		defer func() { r.nest-- }()
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		r.pos++
		r.skipSpace()
		if r.src[r.pos] == closer {
			r.pos++
			w.b = append(w.b, c, closer)
			return nil
		}
		w.b = append(w.b, c)
		for first := true; ; first = false {
			if !first {
				w.b = append(w.b, ',')
			}
			w.newline(depth + 1)
			if c == '{' {
				r.skipSpace()
				if err := r.str(w); err != nil {
					return err
				}
				r.skipSpace()
				r.pos++ // ':'
				w.b = append(w.b, ':', ' ')
			}
			if err := r.value(w, depth+1); err != nil {
				return err
			}
			r.skipSpace()
			if r.src[r.pos] == closer {
				r.pos++
				break
			}
			r.pos++ // ','
		}
		w.newline(depth)
		w.b = append(w.b, closer)
	case '"':
		return r.str(w)
	default: // number, true, false, null: copy the literal
		start := r.pos
		for r.pos < len(r.src) {
			switch r.src[r.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				w.b = append(w.b, r.src[start:r.pos]...)
				return nil
			}
			r.pos++
		}
		w.b = append(w.b, r.src[start:]...)
	}
	return nil
}

// str copies the string literal at pos, re-escaped as pyjson escapes: as
// is when it is already in that form (pyjson.Canonical), as our own bodies
// are, else decoded and encoded again.
func (r *rawScanner) str(w *indentWriter) error {
	start := r.pos
	r.pos++
	for {
		k := bytes.IndexByte(r.src[r.pos:], '"')
		if k < 0 {
			return errInvalidJSON
		}
		q := r.pos + k
		r.pos = q + 1
		slashes := 0
		for i := q - 1; i > start && r.src[i] == '\\'; i-- {
			slashes++
		}
		if slashes%2 == 0 {
			break
		}
	}
	lit := r.src[start:r.pos]
	if pyjson.Canonical(lit) {
		w.b = append(w.b, lit...)
		return nil
	}
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return fmt.Errorf("string literal: %w", err)
	}
	w.b = pyjson.AppendString(w.b, s)
	return nil
}
