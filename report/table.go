// Package report renders query results for people and for machines: aligned
// text tables, CSV, JSON and GitHub-flavoured Markdown (for
// $GITHUB_STEP_SUMMARY).
package report

import (
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Formats are the names Write accepts.
var Formats = []string{"table", "csv", "json", "markdown"}

// Table is a result set: column names and rows of values (nil is NULL).
type Table struct {
	Columns []string
	Rows    [][]any
}

// FromRows reads every row of rows into a Table and closes rows.
func FromRows(rows *sql.Rows) (*Table, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	t := &Table{Columns: cols}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, vals)
	}
	return t, rows.Err()
}

// Write renders t in format: table (aligned text), csv, json (an array of
// objects) or markdown. An unknown format is an error listing the valid ones.
func Write(w io.Writer, t *Table, format string) error {
	switch format {
	case "", "table":
		return writeText(w, t)
	case "csv":
		cw := csv.NewWriter(w)
		if err := cw.Write(t.Columns); err != nil {
			return err
		}
		for _, r := range t.Rows {
			rec := make([]string, len(r))
			for i, v := range r {
				rec[i] = Cell(v)
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	case "json":
		out := make([]map[string]any, len(t.Rows))
		for i, r := range t.Rows {
			m := make(map[string]any, len(r))
			for j, v := range r {
				m[t.Columns[j]] = jsonValue(v)
			}
			out[i] = m
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	case "markdown":
		return writeMarkdown(w, t)
	}
	return CheckFormat(format)
}

// Cell renders one value as text: NULL as "", floats with up to 4
// decimals, times in RFC 3339, maps (labels) as k=v,k=v in key order.
func Cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ""
		}
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		return strconv.FormatFloat(x, 'f', 4, 64)
	case float32:
		return Cell(float64(x))
	case []byte:
		return string(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = Cell(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	if m, ok := mapCell(v); ok {
		return m
	}
	return fmt.Sprint(v)
}

func jsonValue(v any) any {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
	}
	if m, ok := mapJSON(v); ok {
		return m
	}
	return v
}

func writeText(w io.Writer, t *Table) error {
	widths := make([]int, len(t.Columns))
	cells := make([][]string, len(t.Rows))
	for i, c := range t.Columns {
		widths[i] = utf8.RuneCountInString(c)
	}
	for i, r := range t.Rows {
		cells[i] = make([]string, len(r))
		for j, v := range r {
			cells[i][j] = Cell(v)
			widths[j] = max(widths[j], utf8.RuneCountInString(cells[i][j]))
		}
	}
	var b strings.Builder
	line := func(vals []string) {
		for j, v := range vals {
			if j > 0 {
				b.WriteString("  ")
			}
			pad := widths[j] - utf8.RuneCountInString(v)
			if j == len(vals)-1 {
				pad = 0
			}
			b.WriteString(v + strings.Repeat(" ", max(pad, 0)))
		}
		b.WriteString("\n")
	}
	line(t.Columns)
	rule := make([]string, len(widths))
	for i, n := range widths {
		rule[i] = strings.Repeat("-", n)
	}
	line(rule)
	for _, r := range cells {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMarkdown(w io.Writer, t *Table) error {
	var b strings.Builder
	esc := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }
	b.WriteString("|")
	for _, c := range t.Columns {
		b.WriteString(" " + esc(c) + " |")
	}
	b.WriteString("\n|")
	for range t.Columns {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("|")
		for _, v := range r {
			b.WriteString(" " + esc(Cell(v)) + " |")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
