// Package trace analyses mooncake request traces the way `aiperf
// analyze-trace` does: sequence-length distributions, how much the rows'
// KV-cache blocks (hash_ids) share prefixes, and the hit rate an infinite
// prefix cache would reach replaying the rows in file order.
package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// DefaultBlockSize is the tokens per hash_ids block of a mooncake trace.
const DefaultBlockSize = 512

// maxLineBytes bounds one trace line.
const maxLineBytes = 256 << 20

// Analysis is AIPerf's AnalysisStats: the statistics of one trace. The JSON
// names and their order are AIPerf's (WriteJSON writes them exactly as
// AIPerf's pydantic model does). The *Stats fields are nil (null) when they
// cover no rows: all of them for an empty trace, HitRateStats when no row
// has hash_ids.
type Analysis struct {
	// TotalRequests is the number of non-blank lines.
	TotalRequests int `json:"total_requests"`
	// UniquePrefixes is the number of distinct prefixes hash_ids[:i],
	// i = 1..len, over all rows.
	UniquePrefixes int `json:"unique_prefixes"`
	// NumPrefixGroups is the number of distinct first blocks that start at
	// least two rows.
	NumPrefixGroups int `json:"num_prefix_groups"`
	// CacheHitRate is the mean, over rows with hash_ids, of the fraction of
	// the row's blocks before its first block not seen in an earlier row
	// (an infinite cache filled in file order); 0 when no row has hash_ids.
	// The mean is exact then rounded once, as Python's statistics.mean.
	CacheHitRate float64 `json:"cache_hit_rate"`
	// MinISL, MaxISL and AvgISL describe input_length (0 for no rows).
	MinISL int64   `json:"min_isl"`
	MaxISL int64   `json:"max_isl"`
	AvgISL float64 `json:"avg_isl"`
	// MinOSL, MaxOSL and AvgOSL describe output_length (0 for no rows).
	MinOSL int64   `json:"min_osl"`
	MaxOSL int64   `json:"max_osl"`
	AvgOSL float64 `json:"avg_osl"`
	// PrefixReuseRatio is the share of prefix occurrences whose prefix
	// occurs more than once: Σ counts of prefixes seen > 1 time ÷ Σ all
	// prefix counts; 0 when no row has hash_ids.
	PrefixReuseRatio float64 `json:"prefix_reuse_ratio"`
	// ISLStats and OSLStats summarise input_length and output_length.
	ISLStats *Stats `json:"isl_stats"`
	OSLStats *Stats `json:"osl_stats"`
	// ContextLengthStats summarises each row's shared context: its
	// input_length when every (position, hash_id) of the row also occurs
	// in another row, else block size × the number of such repeated pairs;
	// 0 for a row without hash_ids.
	ContextLengthStats *Stats `json:"context_length_stats"`
	// UniquePromptLengthStats summarises input_length − context length
	// (negative when the repeated blocks outsize input_length).
	UniquePromptLengthStats *Stats `json:"unique_prompt_length_stats"`
	// HitRateStats summarises the per-row hit rates behind CacheHitRate.
	HitRateStats *Stats `json:"hit_rate_stats"`
}

// LineError is a malformed trace line.
type LineError struct {
	Line  int    // 1-based line number
	Field string // the offending field; "" when the line as a whole is at fault
	Err   error  // what is wrong
}

// Error returns "line N: FIELD: REASON", or "line N: REASON" without a field.
func (e *LineError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("line %d: %s: %v", e.Line, e.Field, e.Err)
	}
	return fmt.Sprintf("line %d: %v", e.Line, e.Err)
}

// Unwrap returns Err.
func (e *LineError) Unwrap() error { return e.Err }

// Analyze reads a mooncake trace (JSONL, one object per line) and returns
// its Analysis, with blockSize tokens per hash_ids block (>= 1;
// DefaultBlockSize for mooncake). It streams r line by line, keeping only
// per-row lengths and block indices. Lines may end in \n, \r\n or \r; blank
// lines are skipped; unknown fields are ignored; a missing input_length or
// output_length counts as 0, as in AIPerf. The first malformed line stops
// the analysis with a *LineError naming the line and the field, e.g.
// "line 7: input_length: not an integer". Analyze does not close r.
func Analyze(r io.Reader, blockSize int) (*Analysis, error) {
	if blockSize < 1 {
		return nil, fmt.Errorf("block size %d: must be >= 1", blockSize)
	}
	a := newAccumulator(int64(blockSize))
	var rw row
	err := eachLine(r, func(b []byte) error {
		if err := parseRow(b, &rw); err != nil {
			return err
		}
		if !a.fits(len(rw.hashIDs)) {
			return errors.New("too many distinct blocks to analyse")
		}
		a.add(&rw)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return a.result(), nil
}

// eachLine calls fn with each non-blank line of r, split as scanLines
// splits (b is valid until fn returns). An invalid UTF-8 line (AIPerf
// reads the file as UTF-8 and fails on it), a line longer than
// maxLineBytes or an error of fn stops it with a *LineError naming the
// line, and the field of a *fieldError; a read error is returned wrapped.
func eachLine(r io.Reader, fn func(b []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	sc.Split(scanLines)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if blank(b) {
			continue
		}
		if !utf8.Valid(b) {
			return &LineError{Line: line, Err: errors.New("invalid UTF-8")}
		}
		if err := fn(b); err != nil {
			le := &LineError{Line: line, Err: err}
			var fe *fieldError
			if errors.As(err, &fe) {
				le.Field, le.Err = fe.field, errors.New(fe.reason)
			}
			return le
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &LineError{Line: line + 1, Err: fmt.Errorf("longer than %d bytes", maxLineBytes)}
		}
		return fmt.Errorf("read trace: %w", err)
	}
	return nil
}

// scanLines is a bufio.SplitFunc for Python's universal newlines: a line
// ends at \n, \r\n or a lone \r, and the terminator is dropped.
func scanLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	end := bytes.IndexByte(data, '\n')
	head := data
	if end >= 0 {
		head = data[:end]
	}
	if cr := bytes.IndexByte(head, '\r'); cr >= 0 {
		switch {
		case cr+1 < len(data):
			if data[cr+1] == '\n' {
				return cr + 2, data[:cr], nil
			}
			return cr + 1, data[:cr], nil
		case atEOF:
			return cr + 1, data[:cr], nil
		default:
			return 0, nil, nil // a \r ends the buffer: is it \r\n?
		}
	}
	if end >= 0 {
		return end + 1, data[:end], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// blank reports whether line holds only ASCII whitespace (Python's
// line.strip() == "" for the characters a trace can hold).
func blank(line []byte) bool {
	for _, c := range line {
		switch c {
		case ' ', '\t', '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x1f:
		default:
			return false
		}
	}
	return true
}
