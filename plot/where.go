package plot

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrWhere is returned (wrapped, with the reason) for an Options.Where
// that is not one SQL predicate over runs.
var ErrWhere = errors.New("invalid --where: want one SQL predicate over runs, such as \"model = 'llama' AND concurrency >= 8\"")

// whereClause is a checked Options.Where; the zero value keeps every run.
type whereClause struct {
	pred string
}

// parseWhere checks that pred is one boolean expression over the runs
// table. The database is the user's own, so the predicate is theirs to
// write; what is refused is anything that would make it more than a
// filter: a second statement, or a statement other than a SELECT.
// DuckDB's own parser decides, through json_serialize_sql, which
// serialises SELECT statements only and counts them.
func parseWhere(ctx context.Context, db *sql.DB, pred string) (whereClause, error) {
	pred = strings.TrimSpace(pred)
	if pred == "" {
		return whereClause{}, nil
	}
	// The check wraps pred exactly as loadRuns does, so that what parses
	// as one statement here is one statement there.
	stmt := "SELECT run_id FROM runs WHERE " + wrapPred(pred)
	var doc string
	if err := db.QueryRowContext(ctx, `SELECT json_serialize_sql(?::VARCHAR)::VARCHAR`, stmt).Scan(&doc); err != nil {
		return whereClause{}, fmt.Errorf("check --where: %w", err)
	}
	var parsed struct {
		Error      bool              `json:"error"`
		Message    string            `json:"error_message"`
		Statements []json.RawMessage `json:"statements"`
	}
	if err := json.Unmarshal([]byte(doc), &parsed); err != nil {
		return whereClause{}, fmt.Errorf("check --where: %w", err)
	}
	if parsed.Error {
		return whereClause{}, fmt.Errorf("%q: %s: %w", pred, parsed.Message, ErrWhere)
	}
	if len(parsed.Statements) != 1 {
		return whereClause{}, fmt.Errorf("%q: %w", pred, ErrWhere)
	}
	// Run it once, so that an unknown column is the user's error now.
	rows, err := db.QueryContext(ctx, stmt+" LIMIT 0")
	if err != nil {
		return whereClause{}, fmt.Errorf("%q: %v: %w", pred, err, ErrWhere)
	}
	rows.Close()
	return whereClause{pred: wrapPred(pred)}, nil
}

// wrapPred parenthesises a predicate for use after WHERE.
func wrapPred(pred string) string { return "((" + pred + "\n))" }
