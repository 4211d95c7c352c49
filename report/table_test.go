package report

import (
	"bytes"
	"testing"
	"time"
)

func TestWriteFormats(t *testing.T) {
	tb := &Table{Columns: []string{"run", "p99 ms", "note"}, Rows: [][]any{
		{"a", 12.345678, nil},
		{"bb", float64(3), "x|y"},
		{"c", []byte("raw"), time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
	}}
	want := map[string]string{
		"table": "run  p99 ms   note\n---  -------  --------------------\na    12.3457  \nbb   3        x|y\nc    raw      2026-01-02T03:04:05Z\n",
		"csv":   "run,p99 ms,note\na,12.3457,\nbb,3,x|y\nc,raw,2026-01-02T03:04:05Z\n",
		"markdown": "| run | p99 ms | note |\n|---|---|---|\n| a | 12.3457 |  |\n| bb | 3 | x\\|y |\n" +
			"| c | raw | 2026-01-02T03:04:05Z |\n",
	}
	for format, w := range want {
		var b bytes.Buffer
		if err := Write(&b, tb, format); err != nil {
			t.Fatal(err)
		}
		if b.String() != w {
			t.Errorf("%s:\n got %q\nwant %q", format, b.String(), w)
		}
	}
	var b bytes.Buffer
	if err := Write(&b, tb, "json"); err != nil || !bytes.Contains(b.Bytes(), []byte(`"p99 ms": 12.345678`)) || !bytes.Contains(b.Bytes(), []byte(`"note": null`)) {
		t.Fatalf("json %s %v", b.String(), err)
	}
	if err := Write(&b, tb, "xml"); err == nil {
		t.Fatal("unknown format accepted")
	}
}
