package custom

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// maxLineBytes is the longest JSONL line a dataset may hold, newline
// excluded. Longer lines are reported as bad, never loaded.
const maxLineBytes = 16 << 20

// utf8BOM may open a file written by some editors; it is dropped.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// jsonlScan reads r line by line and calls rec with each non-blank line,
// trimmed of surrounding white space, in order with its 1-based number. The
// data is only valid during the call. A line over limit bytes or not valid
// UTF-8 is passed to bad (with a message) instead, so that every bad line can
// be reported. Blank lines are skipped, as AIPerf does. A UTF-8 byte-order
// mark opening the first line is dropped. jsonlScan returns the first read
// error, or the first error rec or bad returns, which stops the scan.
func jsonlScan(r io.Reader, limit int, rec func(line int, data []byte) error, bad func(line int, msg string) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for line := 1; ; line++ {
		buf = buf[:0]
		var read int64 // bytes of this line, terminator included
		over, newline := false, false
		var rerr error
		for {
			chunk, err := br.ReadSlice('\n')
			read += int64(len(chunk))
			newline = len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
			if !over {
				// limit+2 leaves room for a "\r\n" terminator.
				if len(buf)+len(chunk) > limit+2 {
					over, buf = true, buf[:0]
				} else {
					buf = append(buf, chunk...)
				}
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			rerr = err
			break
		}
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return fmt.Errorf("line %d: %w", line, rerr)
		}
		if read == 0 { // EOF at the start of a line
			return nil
		}
		content := bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r"))
		if line == 1 {
			content = bytes.TrimPrefix(content, utf8BOM)
		}
		if newline {
			read--
		}
		var err error
		switch trimmed := bytes.TrimSpace(content); {
		case over || len(content) > limit:
			err = bad(line, fmt.Sprintf("line is %d bytes, longer than the %s limit", read, sizeText(limit)))
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

// sizeText writes n bytes as "16 MiB", or "100 bytes" when not whole MiB.
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

// badLines collects the LineErrors of one load, keeping the first max of
// them and counting all. A line is counted once: a second error for the line
// just added is dropped.
type badLines struct {
	max      int
	fe       FileError
	lastFile string
	lastLine int
}

// add records that line of file is bad; e carries the field and message.
func (b *badLines) add(file string, line int, e *LineError) {
	if b.fe.Total > 0 && file == b.lastFile && line == b.lastLine {
		return
	}
	b.lastFile, b.lastLine = file, line
	b.fe.Total++
	if len(b.fe.Lines) < b.max {
		b.fe.Lines = append(b.fe.Lines, LineError{File: file, Line: line, Field: e.Field, Msg: e.Msg})
	}
}

// err returns the *FileError when any line was bad, else nil.
func (b *badLines) err() error {
	if b.fe.Total == 0 {
		return nil
	}
	fe := b.fe
	return &fe
}

// jsonObject is one JSONL record: its top-level fields, undecoded.
type jsonObject map[string]json.RawMessage

// parseJSONObject decodes one line that must hold a single JSON object. It
// returns a *LineError (Field empty) for invalid JSON or another value.
func parseJSONObject(data []byte) (jsonObject, *LineError) {
	var obj jsonObject
	if err := json.Unmarshal(data, &obj); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, &LineError{Msg: fmt.Sprintf("invalid JSON at byte %d: %v", syn.Offset, syn)}
		}
		return nil, &LineError{Msg: "not a JSON object (want one object per line)"}
	}
	if obj == nil { // the line was "null"
		return nil, &LineError{Msg: "not a JSON object (want one object per line)"}
	}
	return obj, nil
}

// firstJSONObject returns the first record of the file at path, for format
// detection: it reads up to the first non-blank line only. ok is false when
// the path is not a readable regular file or that line is not a JSON object.
func firstJSONObject(path string) (obj jsonObject, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	errFound := errors.New("found")
	stop := func(int, string) error { return errFound }
	err = jsonlScan(f, maxLineBytes, func(_ int, data []byte) error {
		obj, _ = parseJSONObject(data)
		return errFound
	}, stop)
	return obj, errors.Is(err, errFound) && obj != nil
}

// readRecords reads the JSONL file at path and calls fn with each record
// (a non-blank line holding a JSON object). Lines that are too long, not
// UTF-8 or not a JSON object, and every *LineError fn returns, go to bad.
// It returns the number of non-blank lines, and an error when the file
// cannot be read or ctx ends.
func readRecords(ctx context.Context, path string, bad *badLines, fn func(line int, obj jsonObject) *LineError) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	records := 0
	err = jsonlScan(f, maxLineBytes, func(line int, data []byte) error {
		records++
		if records%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		obj, lerr := parseJSONObject(data)
		if lerr == nil {
			lerr = fn(line, obj)
		}
		if lerr != nil {
			bad.add(path, line, lerr)
		}
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

// errBlankFile is returned for a dataset file with no non-blank line.
var errBlankFile = errors.New("no records (the file is empty or blank)")
