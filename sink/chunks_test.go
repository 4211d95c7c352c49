package sink

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestChunks writes lines across buffer boundaries and cuts after the last
// newline: the two parts hold exactly the bytes written, split there.
func TestChunks(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
	}{
		{"empty", ""},
		{"no newline", "partial"},
		{"one line", "line\n"},
		{"exact buffer", strings.Repeat("x", chunkSize-1) + "\n"},
		{"newline first in next buffer", strings.Repeat("x", chunkSize) + "\ntail"},
		{"many buffers", strings.Repeat(strings.Repeat("y", 1000)+"\n", 300) + "torn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c chunks
			for p := tc.data; len(p) > 0; {
				k := min(len(p), 777) // writes that straddle buffers
				c.Write([]byte(p[:k]))
				p = p[k:]
			}
			var all bytes.Buffer
			c.WriteTo(&all)
			if all.String() != tc.data || c.Len() != len(tc.data) {
				t.Fatalf("held %d bytes, want %d", c.Len(), len(tc.data))
			}
			if want := byte(0); len(tc.data) > 0 && c.lastByte() != tc.data[len(tc.data)-1] || len(tc.data) == 0 && c.lastByte() != want {
				t.Fatalf("lastByte %q", c.lastByte())
			}
			rest, ok := c.cutAfterLastNewline()
			cut := strings.LastIndexByte(tc.data, '\n') + 1
			if ok != (cut > 0) {
				t.Fatalf("cut ok = %v", ok)
			}
			if !ok {
				return
			}
			r, _ := c.source()(func() {})
			head, _ := io.ReadAll(r)
			var tail bytes.Buffer
			rest.WriteTo(&tail)
			if string(head) != tc.data[:cut] || tail.String() != tc.data[cut:] {
				t.Fatalf("cut into %d + %d bytes, want %d + %d", len(head), tail.Len(), cut, len(tc.data)-cut)
			}
			c.release()
			rest.release()
			if c.Len() != 0 {
				t.Fatal("not empty after release")
			}
		})
	}
}
