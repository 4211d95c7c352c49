package export

import (
	"strings"
	"unicode"
)

// This file draws tables the way the Python library rich prints them with
// AIPerf's settings (box.HEAVY_HEAD, one space of cell padding), as plain
// text without colors. Unlike rich, nothing is wrapped to a terminal width:
// columns are as wide as their content.

// column is a table column: its header and whether cells are right-aligned.
type column struct {
	header string
	right  bool
}

// appendTable appends title (centered) and the table of cols and rows. A cell
// may hold several lines ("\n"); the other cells of its row are blank on the
// extra lines.
func appendTable(b []byte, title string, cols []column, rows [][]string) []byte {
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = maxLineWidth(c.header)
	}
	for _, row := range rows {
		for i := range cols {
			widths[i] = max(widths[i], maxLineWidth(row[i]))
		}
	}
	total := len(cols) + 1
	for _, w := range widths {
		total += w + 2
	}

	b = appendCentered(b, title, total)
	b = appendRule(b, widths, "┏", "━", "┳", "┓")
	headers := make([]string, len(cols))
	for i, c := range cols {
		headers[i] = c.header
	}
	b = appendRow(b, cols, widths, headers, "┃")
	b = appendRule(b, widths, "┡", "━", "╇", "┩")
	for _, row := range rows {
		b = appendRow(b, cols, widths, row, "│")
	}
	return appendRule(b, widths, "└", "─", "┴", "┘")
}

// appendCentered appends text centered over width (wrapped at spaces when
// longer), one line per line, without trailing spaces as in AIPerf's
// console text.
func appendCentered(b []byte, text string, width int) []byte {
	for _, line := range wrapWords(text, width) {
		if pad := (width - cellWidth(line)) / 2; pad > 0 {
			b = append(b, strings.Repeat(" ", pad)...)
		}
		b = append(b, line...)
		b = append(b, '\n')
	}
	return b
}

// wrapWords splits text into lines of at most width cells at spaces; a word
// longer than width gets a line of its own.
func wrapWords(text string, width int) []string {
	if cellWidth(text) <= width {
		return []string{text}
	}
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case cellWidth(line)+1+cellWidth(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

func appendRule(b []byte, widths []int, left, fill, mid, right string) []byte {
	b = append(b, left...)
	for i, w := range widths {
		if i > 0 {
			b = append(b, mid...)
		}
		b = append(b, strings.Repeat(fill, w+2)...)
	}
	b = append(b, right...)
	return append(b, '\n')
}

// appendRow appends one table row, as many lines tall as its tallest cell.
func appendRow(b []byte, cols []column, widths []int, cells []string, edge string) []byte {
	lines := make([][]string, len(cells))
	height := 1
	for i, c := range cells {
		lines[i] = strings.Split(c, "\n")
		height = max(height, len(lines[i]))
	}
	for h := range height {
		b = append(b, edge...)
		for i, w := range widths {
			if i > 0 {
				b = append(b, edge...)
			}
			text := ""
			if h < len(lines[i]) {
				text = lines[i][h]
			}
			pad := w - cellWidth(text)
			b = append(b, ' ')
			if cols[i].right {
				b = appendSpaces(b, pad)
				b = append(b, text...)
			} else {
				b = append(b, text...)
				b = appendSpaces(b, pad)
			}
			b = append(b, ' ')
		}
		b = append(b, edge...)
		b = append(b, '\n')
	}
	return b
}

func appendSpaces(b []byte, n int) []byte {
	for range n {
		b = append(b, ' ')
	}
	return b
}

func maxLineWidth(s string) int {
	w := 0
	for line := range strings.SplitSeq(s, "\n") {
		w = max(w, cellWidth(line))
	}
	return w
}

// cellWidth is the number of terminal columns s takes: East Asian wide and
// fullwidth characters (and most emoji) take two, combining marks and
// control characters none, everything else (box drawing included) one.
func cellWidth(s string) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

func runeWidth(r rune) int {
	switch {
	case r < 0x20 || (r >= 0x7f && r < 0xa0):
		return 0
	case r < 0x1100:
		if unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) {
			return 0
		}
		return 1
	case r <= 0x115f, // Hangul Jamo
		r >= 0x2e80 && r <= 0xa4cf && r != 0x303f, // CJK ... Yi
		r >= 0xac00 && r <= 0xd7a3,                // Hangul syllables
		r >= 0xf900 && r <= 0xfaff,                // CJK compatibility ideographs
		r >= 0xfe30 && r <= 0xfe4f,                // CJK compatibility forms
		r >= 0xff00 && r <= 0xff60,                // fullwidth forms
		r >= 0xffe0 && r <= 0xffe6,
		r >= 0x1f300 && r <= 0x1f64f, // emoji
		r >= 0x1f900 && r <= 0x1f9ff,
		r >= 0x20000 && r <= 0x3fffd:
		return 2
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == 0x200b:
		return 0
	}
	return 1
}

// truncateCells shortens s to at most width cells, ending it with "…" when
// something was cut.
func truncateCells(s string, width int) string {
	if cellWidth(s) <= width {
		return s
	}
	w := 0
	for i, r := range s {
		rw := runeWidth(r)
		if w+rw > width-1 {
			return s[:i] + "…"
		}
		w += rw
	}
	return s
}

// singleLine makes s safe for one table line: runs of whitespace and control
// characters become one space, invalid UTF-8 becomes U+FFFD.
func singleLine(s string) string {
	s = strings.ToValidUTF8(s, "\ufffd")
	var sb strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space && sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		space = false
		sb.WriteRune(r)
	}
	return sb.String()
}
