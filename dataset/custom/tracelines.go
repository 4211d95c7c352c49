package custom

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"unicode/utf8"
)

// traceMaxLine is the longest trace line (JSONL) or row (CSV) accepted, in
// bytes, terminator excluded; longer ones are reported, never loaded.
const traceMaxLine = 16 << 20

// traceErrs collects the bad lines of one trace file, whichever pass finds
// them (row parsing, session checks); err reports them in line order, one
// LineError per line (the first problem found for it), the first max kept.
type traceErrs struct {
	file  string
	max   int
	lines []LineError
}

func newTraceErrs(o *Options) *traceErrs {
	return &traceErrs{file: o.Path, max: max(o.MaxErrors, 1)}
}

// add records that line is bad because of field (may be "").
func (e *traceErrs) add(line int, field, msg string) {
	e.lines = append(e.lines, LineError{File: e.file, Line: line, Field: field, Msg: msg})
}

// err returns a *FileError when any line was bad, else nil.
func (e *traceErrs) err() error {
	if len(e.lines) == 0 {
		return nil
	}
	slices.SortStableFunc(e.lines, func(a, b LineError) int { return cmp.Compare(a.Line, b.Line) })
	e.lines = slices.CompactFunc(e.lines, func(a, b LineError) bool { return a.Line == b.Line })
	fe := &FileError{Total: len(e.lines)}
	fe.Lines = slices.Clone(e.lines[:min(len(e.lines), e.max)])
	return fe
}

// traceScan reads the JSONL stream r and calls row with each non-blank line,
// trimmed of surrounding white space, and its 1-based number, in order. The
// bytes are valid only during the call. A line longer than traceMaxLine or
// not valid UTF-8 goes to errs instead. A UTF-8 byte-order mark opening the
// stream is dropped. It returns a read error (with its line), or ctx's error
// when ctx is cancelled; bad lines are not errors here.
func traceScan(ctx context.Context, r io.Reader, errs *traceErrs, row func(line int, b []byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte // a line spanning more than one buffer
	for line := 1; ; line++ {
		if line%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		b, n, err := traceReadLine(br, &long)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if n == 0 && errors.Is(err, io.EOF) {
			return nil
		}
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
		}
		switch t := bytes.TrimSpace(b); {
		case n > traceMaxLine:
			errs.add(line, "", fmt.Sprintf("line is %d bytes, longer than the %d MiB limit", n, traceMaxLine>>20))
		case len(t) == 0:
		case !utf8.Valid(t):
			errs.add(line, "", fmt.Sprintf("invalid UTF-8 at byte %d of the line", traceBadUTF8(t)))
		default:
			row(line, t)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
	}
}

// traceReadLine returns the next line of br without its "\n" or "\r\n",
// and its length n in bytes. A line longer than traceMaxLine is consumed but
// returned as nil (n still tells its length). buf is scratch space reused
// across calls. err is io.EOF at the end of the stream, with the last line
// when it has no terminator.
func traceReadLine(br *bufio.Reader, buf *[]byte) (line []byte, n int, err error) {
	*buf = (*buf)[:0]
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if !over && len(*buf)+len(chunk) > traceMaxLine+2 {
			over, *buf = true, (*buf)[:0]
		}
		if !over {
			*buf = append(*buf, chunk...)
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
		if over || n > traceMaxLine {
			return nil, n, err
		}
		return (*buf)[:n], n, err
	}
}

// traceBadUTF8 returns the offset of the first invalid UTF-8 sequence in b.
func traceBadUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// traceHead returns the first non-blank line of the regular file at path
// (up to traceMaxLine bytes, byte-order mark dropped, white space trimmed),
// for format detection; ok is false when the file cannot be read, is not a
// regular file or has no such line.
func traceHead(path string) (line []byte, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	br := bufio.NewReaderSize(f, 64<<10)
	var long []byte
	for first := true; ; first = false {
		b, n, err := traceReadLine(br, &long)
		if first {
			b = bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
		}
		if t := bytes.TrimSpace(b); len(t) > 0 && n <= traceMaxLine {
			return bytes.Clone(t), true
		}
		if err != nil || n > traceMaxLine {
			return nil, false
		}
	}
}
