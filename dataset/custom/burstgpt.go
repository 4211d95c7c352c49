package custom

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/dataset"
)

// burstGPTFormat is the burst_gpt_trace type (§4.2): Microsoft's BurstGPT
// CSV, one request per row, with a synthetic prompt of "Request tokens"
// tokens and max_tokens "Response tokens".
//
// AIPerf skips rows it cannot parse; here a bad row is reported (by row
// number, the header being row 1) like a bad line of every other format,
// and the load fails, so that nothing is dropped silently.
var burstGPTFormat = format{
	name:   "burst_gpt_trace",
	detect: detectBurstGPT,
	load:   loadBurstGPT,
}

// burstColumns are the header columns a BurstGPT file must have; other
// columns (Model, Total tokens, Log Type) are ignored.
var burstColumns = [...]string{"Timestamp", "Request tokens", "Response tokens"}

// detectBurstGPT accepts a regular file named *.csv, or one whose first
// line is not JSON and names the "Request tokens" column.
func detectBurstGPT(path string) bool {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return false
	}
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		return true
	}
	head, ok := firstLine(path)
	return ok && head[0] != '{' && bytes.Contains(head, []byte("Request tokens"))
}

// loadBurstGPT reads a burst_gpt_trace file.
func loadBurstGPT(ctx context.Context, o *Options) (*dataset.Dataset, error) {
	f, err := os.Open(o.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	errs := newBadLines(o)
	rows, total, err := readBurstGPT(ctx, f, errs)
	if err != nil {
		return nil, err
	}
	var names sessionNamer
	var sessions []traceSession
	for _, r := range rows {
		if traceKeep(o, r) {
			sessions = append(sessions, traceSession{id: names.name(), mode: dataset.DeltasWithoutResponses, rows: []*traceRow{r}})
		}
	}
	return traceFinish(ctx, o, sessions, errs, total, mooncakeBlockSize)
}

// readBurstGPT parses the CSV stream r: the header (row 1, after an
// optional byte-order mark), then one row per record. It returns the valid rows (line = row number) and how many data
// rows there were; bad rows go to errs. The error is a read error or ctx's.
func readBurstGPT(ctx context.Context, r io.Reader, errs *badLines) (rows []*traceRow, total int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if bom, _ := br.Peek(3); string(bom) == "\xEF\xBB\xBF" {
		_, _ = br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1 // counted here, to report the row
	cr.LazyQuotes = true    // as Python's csv module, which tolerates stray quotes
	header, err := burstRead(cr)
	switch {
	case errors.Is(err, io.EOF):
		return nil, 0, nil
	case err != nil:
		if !burstParseError(err, 1, errs) {
			return nil, 0, err
		}
		return nil, 0, nil
	}
	col, ok := burstHeader(header, errs)
	if !ok {
		return nil, 0, nil
	}
	for row := 2; ; row++ {
		if row%4096 == 0 && ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		rec, err := burstRead(cr)
		if errors.Is(err, io.EOF) {
			return rows, total, nil
		}
		total++
		if err != nil {
			if !burstParseError(err, row, errs) {
				return nil, 0, err
			}
			continue
		}
		r, field, msg := parseBurstRow(rec, len(header), col)
		if msg != "" {
			errs.addRow(row, field, msg)
			continue
		}
		r.line = row
		rows = append(rows, r)
	}
}

// burstRead returns the next record of cr that is not blank: the csv
// package skips empty lines, and this also skips lines of white space.
func burstRead(cr *csv.Reader) ([]string, error) {
	for {
		rec, err := cr.Read()
		if err != nil || len(rec) != 1 || strings.TrimSpace(rec[0]) != "" {
			return rec, err
		}
	}
}

// burstParseError records a CSV syntax error as a bad row and reports
// whether err was one (else it is a read error).
func burstParseError(err error, row int, errs *badLines) bool {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return false
	}
	errs.addRow(row, "", fmt.Sprintf("invalid CSV (line %d, column %d): %v", pe.Line, pe.Column, pe.Err))
	return true
}

// burstHeader finds the required columns in header (white space around a
// name ignored; a repeated name means its last column, as Python's
// csv.DictReader). A missing one is reported as a bad row 1.
func burstHeader(header []string, errs *badLines) (col [len(burstColumns)]int, ok bool) {
	at := make(map[string]int, len(header))
	for i, h := range header {
		at[strings.TrimSpace(h)] = i
	}
	var missing []string
	for k, name := range burstColumns {
		i, found := at[name]
		if !found {
			missing = append(missing, strconv.Quote(name))
		}
		col[k] = i
	}
	if len(missing) > 0 {
		errs.addRow(1, strings.Trim(missing[0], `"`), fmt.Sprintf("header lacks column %s (want Timestamp, Request tokens and Response tokens)", strings.Join(missing, ", ")))
		return col, false
	}
	return col, true
}

// parseBurstRow validates one data record of a file whose header has width
// columns, the required ones at col, and returns the row (line unset) or
// the bad column ("" for the whole row) and what is wrong.
func parseBurstRow(rec []string, width int, col [len(burstColumns)]int) (r *traceRow, field, msg string) {
	if len(rec) != width {
		return nil, "", fmt.Sprintf("has %d fields, the header has %d", len(rec), width)
	}
	size := 0
	for _, v := range rec {
		size += len(v)
	}
	if size > maxLineBytes {
		return nil, "", fmt.Sprintf("row is %d bytes, longer than the %s limit", size, sizeText(maxLineBytes))
	}
	for i, v := range rec {
		if !utf8.ValidString(v) {
			return nil, "", fmt.Sprintf("invalid UTF-8 in field %d", i+1)
		}
	}
	ts, tokIn, tokOut := strings.TrimSpace(rec[col[0]]), strings.TrimSpace(rec[col[1]]), strings.TrimSpace(rec[col[2]])
	seconds, err := strconv.ParseFloat(ts, 64)
	switch {
	case err != nil || math.IsNaN(seconds) || math.IsInf(seconds, 0):
		return nil, "Timestamp", fmt.Sprintf("want a number of seconds, got %q", ts)
	case seconds < 0:
		return nil, "Timestamp", fmt.Sprintf("must be >= 0 s, got %v", seconds)
	}
	in, err := strconv.Atoi(tokIn)
	switch {
	case err != nil:
		return nil, "Request tokens", fmt.Sprintf("want an integer, got %q", tokIn)
	case in <= 0:
		return nil, "Request tokens", fmt.Sprintf("must be > 0, got %d", in)
	}
	out, err := strconv.Atoi(tokOut)
	switch {
	case err != nil:
		return nil, "Response tokens", fmt.Sprintf("want an integer, got %q", tokOut)
	case out < 0:
		return nil, "Response tokens", fmt.Sprintf("must be >= 0, got %d", out)
	}
	return &traceRow{
		input:        traceSynthetic,
		inputLength:  in,
		outputLength: out,
		hasOutput:    true,
		timestamp:    seconds * 1000,
		hasTimestamp: true,
	}, "", ""
}
