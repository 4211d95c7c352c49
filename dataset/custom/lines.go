package custom

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"unicode/utf8"
)

// maxLineBytes is the longest JSONL line or CSV row a dataset may hold,
// terminator excluded. Longer ones are reported as bad, never loaded.
const maxLineBytes = 16 << 20

// utf8BOM may open a file written by some editors; it is dropped.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// lineReader splits a stream into lines for jsonlScan and firstLine.
type lineReader struct {
	br    *bufio.Reader
	limit int
	buf   []byte // scratch space reused across lines
}

func newLineReader(r io.Reader, limit int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), limit: limit}
}

// next returns the next line without its "\n" or "\r\n" and its length n
// in bytes. A line longer than the limit is consumed but returned as nil (n
// still tells its length). The bytes are valid until the next call. err is
// io.EOF at the end of the stream, with the last line when it has no
// terminator (n == 0 and io.EOF: nothing was left), or a read error.
func (lr *lineReader) next() (line []byte, n int, err error) {
	lr.buf = lr.buf[:0]
	over := false
	for {
		chunk, err := lr.br.ReadSlice('\n')
		n += len(chunk)
		// limit+2 leaves room for a "\r\n" terminator.
		if !over && len(lr.buf)+len(chunk) > lr.limit+2 {
			over, lr.buf = true, lr.buf[:0]
		}
		if !over {
			lr.buf = append(lr.buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if bytes.HasSuffix(chunk, []byte("\n")) {
			n--
			if bytes.HasSuffix(chunk, []byte("\r\n")) {
				n--
			}
		}
		if over || n > lr.limit {
			return nil, n, err
		}
		return lr.buf[:n], n, err
	}
}

// jsonlScan reads r line by line and calls rec with each non-blank line,
// trimmed of surrounding white space, in order with its 1-based number. The
// data is only valid during the call. A line over limit bytes or not valid
// UTF-8 is passed to bad (with a message) instead, so that every bad line can
// be reported. Blank lines are skipped, as AIPerf does. A UTF-8 byte-order
// mark opening the first line is dropped. jsonlScan returns the first read
// error (with its line), or the first error rec or bad returns, which stops
// the scan.
func jsonlScan(r io.Reader, limit int, rec func(line int, data []byte) error, bad func(line int, msg string) error) error {
	lr := newLineReader(r, limit)
	for line := 1; ; line++ {
		b, n, rerr := lr.next()
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return fmt.Errorf("line %d: %w", line, rerr)
		}
		if n == 0 && rerr != nil { // EOF at the start of a line
			return nil
		}
		if line == 1 {
			b = bytes.TrimPrefix(b, utf8BOM)
		}
		var err error
		switch trimmed := bytes.TrimSpace(b); {
		case n > limit:
			err = bad(line, fmt.Sprintf("line is %d bytes, longer than the %s limit", n, sizeText(limit)))
		case len(trimmed) == 0:
		case !utf8.Valid(trimmed):
			err = bad(line, fmt.Sprintf("invalid UTF-8 at byte %d of the line", invalidUTF8At(trimmed)))
		default:
			err = rec(line, trimmed)
		}
		if err != nil {
			return err
		}
		if rerr != nil { // io.EOF after a last line without newline
			return nil
		}
	}
}

// sizeText writes n bytes as "16 MiB", or "100-byte" when not whole MiB.
func sizeText(n int) string {
	if n > 0 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d-byte", n)
}

// invalidUTF8At returns the offset of the first invalid UTF-8 sequence in b.
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// firstLine returns a copy of the first non-blank line of the regular file
// at path (up to maxLineBytes, byte-order mark dropped, white space
// trimmed, not checked for UTF-8), for format detection; ok is false when
// the file cannot be read, is not a regular file or has no such line.
func firstLine(path string) (line []byte, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	lr := newLineReader(f, maxLineBytes)
	for first := true; ; first = false {
		b, n, err := lr.next()
		if first {
			b = bytes.TrimPrefix(b, utf8BOM)
		}
		if t := bytes.TrimSpace(b); len(t) > 0 && n <= maxLineBytes {
			return bytes.Clone(t), true
		}
		if err != nil || n > maxLineBytes {
			return nil, false
		}
	}
}

// firstJSONObject returns the first record of the file at path, for format
// detection: it reads up to the first non-blank line only. ok is false when
// the path is not a readable regular file or that line is not valid UTF-8
// holding a JSON object.
func firstJSONObject(path string) (obj jsonObject, ok bool) {
	line, ok := firstLine(path)
	if !ok || !utf8.Valid(line) {
		return nil, false
	}
	obj, lerr := parseJSONObject(line)
	return obj, lerr == nil
}

// jsonObject is one JSONL record: its top-level fields, undecoded.
type jsonObject map[string]json.RawMessage

// notObject is the message for a line holding valid JSON other than an
// object.
const notObject = "not a JSON object (want one object per line)"

// decodeLine decodes one line that must hold a single JSON object into v
// (a map or a struct of json.RawMessage fields). It returns "" or the
// message for the line's LineError: invalid JSON, or another JSON value.
func decodeLine(b []byte, v any) string {
	if err := json.Unmarshal(b, v); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return fmt.Sprintf("invalid JSON at byte %d: %v", syn.Offset, syn)
		}
		return notObject
	}
	if b[0] != '{' { // the line was "null", which decodes to nothing
		return notObject
	}
	return ""
}

// parseJSONObject decodes one line that must hold a single JSON object. It
// returns a *LineError (Field empty) for invalid JSON or another value.
func parseJSONObject(data []byte) (jsonObject, *LineError) {
	var obj jsonObject
	if msg := decodeLine(data, &obj); msg != "" {
		return nil, &LineError{Msg: msg}
	}
	return obj, nil
}

// scanFile reads the JSONL file at path and calls fn with each non-blank
// line (valid UTF-8, trimmed, valid only during the call) and its number.
// Lines that are too long or not UTF-8 go to bad. It returns the number of
// non-blank lines; the error is the file's open error, a read error
// (wrapped with the path and line), or ctx's error when ctx ends.
func scanFile(ctx context.Context, path string, bad *badLines, fn func(line int, b []byte)) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	records := 0
	err = jsonlScan(f, maxLineBytes, func(line int, b []byte) error {
		records++
		if records%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		fn(line, b)
		return nil
	}, func(line int, msg string) error {
		records++
		bad.add(path, line, &LineError{Msg: msg})
		return nil
	})
	if err != nil {
		return records, fmt.Errorf("read %s: %w", path, err)
	}
	return records, ctx.Err()
}

// readRecords reads the JSONL file at path and calls fn with each record
// (a non-blank line holding a JSON object). Lines that are too long, not
// UTF-8 or not a JSON object, and every *LineError fn returns, go to bad.
// It returns the number of non-blank lines, and an error when the file
// cannot be read or ctx ends.
func readRecords(ctx context.Context, path string, bad *badLines, fn func(line int, obj jsonObject) *LineError) (int, error) {
	return scanFile(ctx, path, bad, func(line int, b []byte) {
		obj, lerr := parseJSONObject(b)
		if lerr == nil {
			lerr = fn(line, obj)
		}
		if lerr != nil {
			bad.add(path, line, lerr)
		}
	})
}

// badLines collects the bad lines of one load, whichever pass finds them
// (line reading, record parsing, session and schedule checks) and in any
// order. err reports them by file (in the order files first had a bad
// line), then by line, one LineError per line (the first problem added for
// it), the first max kept and all counted. Memory stays bounded by max
// messages however many lines are bad: beyond them, a bad line costs its
// number (4 bytes), kept to count distinct lines.
type badLines struct {
	file  string // the file of the lines given to addRow
	max   int
	kept  []LineError        // the first max, in report order
	rank  map[string]int     // file -> order of its first bad line
	lines map[string][]int32 // file -> every bad line number, with repeats
}

// newBadLines returns a collector for o: rows added with addRow belong to
// o.Path, and at most o.MaxErrors (at least 1) lines are listed.
func newBadLines(o *Options) *badLines {
	return &badLines{file: o.Path, max: max(o.MaxErrors, 1)}
}

// add records that line of file is bad; e carries the field and message.
func (b *badLines) add(file string, line int, e *LineError) {
	b.addLine(LineError{File: file, Line: line, Field: e.Field, Msg: e.Msg})
}

// addRow records that line (or CSV row) of b.file is bad because of field
// (may be "").
func (b *badLines) addRow(line int, field, msg string) {
	b.addLine(LineError{File: b.file, Line: line, Field: field, Msg: msg})
}

// addLine counts l's line and keeps l when it is among the first max.
func (b *badLines) addLine(l LineError) {
	if b.rank == nil {
		b.rank, b.lines = map[string]int{}, map[string][]int32{}
	}
	if _, ok := b.rank[l.File]; !ok {
		b.rank[l.File] = len(b.rank)
	}
	b.lines[l.File] = append(b.lines[l.File], int32(l.Line))
	before := func(x LineError) int {
		return cmp.Or(cmp.Compare(b.rank[l.File], b.rank[x.File]), cmp.Compare(l.Line, x.Line))
	}
	i, found := slices.BinarySearchFunc(b.kept, l, func(x, _ LineError) int { return -before(x) })
	if found || i >= b.max {
		return // an earlier problem of this line wins; or not among the first max
	}
	b.kept = slices.Insert(b.kept, i, l)
	if len(b.kept) > b.max {
		b.kept = b.kept[:b.max]
	}
}

// err returns a *FileError when any line was bad, else nil.
func (b *badLines) err() error {
	if len(b.kept) == 0 {
		return nil
	}
	total := 0
	for _, ls := range b.lines {
		slices.Sort(ls)
		total += len(slices.Compact(ls))
	}
	return &FileError{Total: total, Lines: slices.Clone(b.kept)}
}

// errBlankFile is returned for a dataset file with no non-blank line.
var errBlankFile = errors.New("no records (the file is empty or blank)")
