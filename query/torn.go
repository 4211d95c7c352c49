package query

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// tornTailMax bounds how much of a records file's end is read to find its
// last line: a longer last line is not checked (and fails to load, as any
// malformed line does).
const tornTailMax = 4 << 20

// tornTail reports whether the JSONL file ends in a line cut short (a
// process killed mid-write, a copy that stopped): its bytes after the last
// newline are not one JSON value. keep is the length of its complete
// lines.
func tornTail(file string) (keep int64, torn bool, err error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, false, err
	}
	size := st.Size()
	n := min(size, tornTailMax)
	tail := make([]byte, n)
	if _, err := f.ReadAt(tail, size-n); err != nil && err != io.EOF {
		return 0, false, err
	}
	i := bytes.LastIndexByte(tail, '\n')
	if i < 0 && n < size {
		return 0, false, nil // a last line longer than we look at
	}
	last := bytes.TrimSpace(tail[i+1:])
	if len(last) == 0 || json.Valid(last) {
		return size, false, nil
	}
	return size - n + int64(i+1), true, nil
}

// trimTornRecords replaces each records file of p whose last line is torn
// by a temporary copy of its complete lines, and says so in the run's
// reason (and to db.OnPartialRun), so that the run loads what it has rather
// than failing. It returns a function that removes the copies.
func (db *DB) trimTornRecords(p *loadPlan) (cleanup func(), err error) {
	var temps []string
	cleanup = func() {
		for _, t := range temps {
			_ = os.Remove(t)
		}
	}
	for i, file := range p.records {
		keep, torn, err := tornTail(file)
		if err != nil || !torn {
			continue // a file that cannot be read fails when it is loaded
		}
		tmp, err := copyPrefix(file, keep)
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("%s: truncated last line: %w", file, err)
		}
		temps = append(temps, tmp)
		p.records[i] = tmp
		note := fmt.Sprintf("%s ends in a truncated line; its %d bytes of complete records were loaded", filepath.Base(file), keep)
		if db.OnPartialRun != nil {
			db.OnPartialRun(p.run.ID, note)
		}
		if p.run.Reason != "" {
			note = p.run.Reason + "; " + note
		}
		p.run.Reason = note
	}
	return cleanup, nil
}

// copyPrefix copies the first n bytes of file to a new temporary file and
// returns its path.
func copyPrefix(file string, n int64) (string, error) {
	src, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer src.Close()
	dst, err := os.CreateTemp("", "aiperf-report-records-*.jsonl")
	if err != nil {
		return "", err
	}
	_, err = io.Copy(dst, io.LimitReader(src, n))
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(dst.Name())
		return "", err
	}
	return dst.Name(), nil
}
