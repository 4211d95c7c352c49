package query

import (
	"slices"
	"testing"
)

// TestRequestFieldColumns: the decoded fields, with run_id and valid, are
// the requests table's columns, each once.
func TestRequestFieldColumns(t *testing.T) {
	db := openTestDB(t)
	rows, err := db.SQL().Query(`SELECT column_name FROM duckdb_columns() WHERE table_name = 'requests' ORDER BY column_index`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var table []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		table = append(table, c)
	}
	got := append([]string{"run_id"}, requestFieldColumns[:]...)
	got = append(got, "valid")
	slices.Sort(got)
	slices.Sort(table)
	if !slices.Equal(got, table) {
		t.Errorf("fields %v\ntable %v", got, table)
	}
	if numFields > flagCancelled {
		t.Errorf("%d fields do not fit the null mask", numFields)
	}
}
