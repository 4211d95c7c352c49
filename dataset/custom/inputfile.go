package custom

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// CheckInputFile reports what makes the --input-file at path unusable
// before any format is tried: it does not exist or cannot be read, it is
// empty or blank, or its first record is longer than the line limit. The
// error names the file, what is wrong and the fix; nil means the file (or
// directory, for random_pool) is worth reading. Malformed content is left
// to the format's loader, which reports every bad line. A path with
// PayloadPrefix is checked without it.
func CheckInputFile(path string) error {
	path, _ = payloadPath(path)
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist: check the --input-file path", path)
	case err != nil:
		return fmt.Errorf("%s cannot be read (%v): check the --input-file path and its permissions", path, unwrapPath(err))
	case st.IsDir() || !st.Mode().IsRegular():
		return nil // a random_pool directory, or a pipe the loader reads
	case st.Size() == 0:
		return fmt.Errorf("%s is empty (0 bytes): give a dataset with one JSON object per line (or a CSV for burst_gpt_trace)", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s cannot be read (%v): check the --input-file path and its permissions", path, unwrapPath(err))
	}
	defer f.Close()
	lr := newLineReader(f, maxLineBytes)
	for line, first := 1, true; ; line, first = line+1, false {
		b, n, err := lr.next()
		if first {
			b = bytes.TrimPrefix(b, utf8BOM)
		}
		if n > maxLineBytes {
			return fmt.Errorf("%s: line %d is %d bytes, longer than the %s limit: split the record, or shorten its text", path, line, n, sizeText(maxLineBytes))
		}
		if len(bytes.TrimSpace(b)) > 0 {
			return nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%s cannot be read (%v): check the --input-file path and its permissions", path, unwrapPath(err))
		}
		if err != nil {
			return fmt.Errorf("%s holds only blank lines (%d bytes): give a dataset with one JSON object per line (or a CSV for burst_gpt_trace)", path, st.Size())
		}
	}
}

// unwrapPath returns the cause of a *fs.PathError, whose own text repeats
// the path the caller already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
