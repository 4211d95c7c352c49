package query

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"gocloud.dev/blob"

	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/sink"
)

// ErrNotGroup reports a merge of a run that is not a run group.
var ErrNotGroup = errors.New("not a run group")

// Merged file names, as a run writes them.
const (
	mergedSummaryCSV = "profile_export_aiperf.csv"
)

// MergeStats reports what MergeGroup wrote.
type MergeStats struct {
	// Status and Reason are the group's (see Ingest).
	Status, Reason string
	// Shards counts the group's shards and Missing those without a
	// manifest.
	Shards, Missing int
	// Records counts the lines of the merged profile_export.jsonl.
	Records int64
	// Files are the names written, relative to the destination.
	Files []string
}

// MergeGroup writes the AIPerf files of run group group of store to out,
// for tools that expect one run's files: profile_export.jsonl, every
// present shard's lines concatenated and ordered by request_num, or by
// request_start_ns in AIPerf 0.13's layout (lines with neither keep their
// shard order, after the others), and
// profile_export_aiperf.json and .csv recomputed over all the records as
// Ingest recomputes a group's run_metrics, written by the export package
// (times in UTC, benchmark_id derived from the group id, input_config the
// first present shard's). Objects of the same names in out are replaced.
// A run that is not a group is an error wrapping ErrNotGroup. Both stores
// stay owned by the caller.
func MergeGroup(ctx context.Context, store *sink.Store, group string, out *blob.Bucket) (*MergeStats, error) {
	rs, err := store.ReadRun(ctx, group)
	if err != nil {
		return nil, fmt.Errorf("merge %s: %w", group, err)
	}
	sr, err := inspectRun(ctx, store, rs)
	if err != nil {
		return nil, fmt.Errorf("merge %s: %w", group, err)
	}
	if !sr.group {
		return nil, fmt.Errorf("merge %s: %w (no shards under runs/%s/shards/)", group, ErrNotGroup, group)
	}
	p := &loadPlan{run: runRow{ID: group, Source: store.Location, ContentKey: sr.key}}
	cleanup, err := planGroup(ctx, store, sr, p)
	defer cleanup()
	if err != nil {
		return nil, fmt.Errorf("merge %s: %w", group, err)
	}
	// The summary is recomputed exactly as an ingest does: through a
	// private database holding the group.
	db, err := Open(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("merge %s: %w", group, err)
	}
	defer db.Close()
	n, err := db.replaceRun(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("merge %s: %w", group, err)
	}
	s := p.group.summary
	st := &MergeStats{Status: p.run.Status, Reason: p.run.Reason, Shards: len(p.group.shards), Records: n}
	for _, sh := range p.group.shards {
		if sh.missing() {
			st.Missing++
		}
	}
	summary, err := summaryJSON(s, group, p.run.InputConfig, p.run.ToolVersion, p.group.win)
	if err != nil {
		return nil, fmt.Errorf("merge %s: %w", group, err)
	}
	var csv bytes.Buffer
	writeCSV := export.WriteSummaryCSV
	if p.group.win.schema14 {
		writeCSV = export.WriteSummaryCSV14
	}
	if err := writeCSV(&csv, s); err != nil {
		return nil, fmt.Errorf("merge %s: %w", group, err)
	}
	var files []string
	for _, f := range p.group.files {
		files = append(files, f...)
	}
	if err := writeObject(ctx, out, recordsFile, func(w io.Writer) error { return concatByRequest(w, files) }); err != nil {
		return nil, fmt.Errorf("merge %s: %w", group, err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{summaryFile, summary}, {mergedSummaryCSV, csv.Bytes()}} {
		if err := out.WriteAll(ctx, f.name, f.data, nil); err != nil {
			return nil, fmt.Errorf("merge %s: write %s: %w", group, f.name, err)
		}
	}
	st.Files = []string{recordsFile, summaryFile, mergedSummaryCSV}
	return st, nil
}

// writeObject streams the object name of b from fill; it is stored only
// when fill and the close succeed.
func writeObject(ctx context.Context, b *blob.Bucket, name string, fill func(io.Writer) error) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := b.NewWriter(wctx, name, nil)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := fill(w); err != nil {
		cancel() // abandons the object
		w.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// lineRef locates one record line in the files being merged.
type lineRef struct {
	num       int64 // request_num; hasNum false sorts after every number
	hasNum    bool
	file      int
	off       int64
	length    int
	serial    int // position in the concatenation, for a stable order
	lineBreak bool
}

// concatByRequest writes the non-blank lines of files to w ordered by
// requestNum, each ending in a newline. Only the lines' positions
// are held in memory: the files are read twice.
func concatByRequest(w io.Writer, files []string) error {
	var refs []lineRef
	for fi, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		br := bufio.NewReaderSize(f, 1<<20)
		var off int64
		for {
			line, err := br.ReadSlice('\n')
			if errors.Is(err, bufio.ErrBufferFull) {
				// A line longer than the buffer: read the rest of it.
				rest, rerr := br.ReadBytes('\n')
				line, err = append(slices.Clone(line), rest...), rerr
			}
			if len(line) > 0 && len(bytes.TrimSpace(line)) > 0 {
				num, ok := requestNum(line)
				refs = append(refs, lineRef{num: num, hasNum: ok, file: fi, off: off, length: len(line),
					serial: len(refs), lineBreak: line[len(line)-1] == '\n'})
			}
			off += int64(len(line))
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				f.Close()
				return err
			}
		}
		f.Close()
	}
	slices.SortFunc(refs, func(a, b lineRef) int {
		switch {
		case a.hasNum != b.hasNum:
			if a.hasNum {
				return -1
			}
			return 1
		case a.num != b.num:
			if a.num < b.num {
				return -1
			}
			return 1
		}
		return a.serial - b.serial
	})
	opened := make([]*os.File, len(files))
	defer func() {
		for _, f := range opened {
			if f != nil {
				f.Close()
			}
		}
	}()
	bw := bufio.NewWriterSize(w, 1<<20)
	var buf []byte
	for _, r := range refs {
		if opened[r.file] == nil {
			f, err := os.Open(files[r.file])
			if err != nil {
				return err
			}
			opened[r.file] = f
		}
		buf = slices.Grow(buf[:0], r.length)[:r.length]
		if _, err := opened[r.file].ReadAt(buf, r.off); err != nil {
			return err
		}
		bw.Write(buf)
		if !r.lineBreak {
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// requestNum reads the first "request_num" number of a record line (its
// metadata's) or, in AIPerf 0.13's layout, which has none, its
// "request_start_ns"; false when there is neither.
func requestNum(line []byte) (int64, bool) {
	if n, ok := intMember(line, `"request_num":`); ok {
		return n, true
	}
	return intMember(line, `"request_start_ns":`)
}

// intMember reads the integer after the first occurrence of key in line.
func intMember(line []byte, key string) (int64, bool) {
	i := bytes.Index(line, []byte(key))
	if i < 0 {
		return 0, false
	}
	rest := bytes.TrimLeft(line[i+len(key):], " \t")
	j := 0
	for j < len(rest) && (rest[j] == '-' || rest[j] >= '0' && rest[j] <= '9') {
		j++
	}
	n, err := strconv.ParseInt(string(rest[:j]), 10, 64)
	return n, err == nil
}
