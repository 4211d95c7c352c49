package plot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
)

// ErrRunNotFound is returned (wrapped, with the run id) when a named run is
// not in the database.
var ErrRunNotFound = errors.New("run not found")

// loadPoints returns the Pareto points of runs, in order: X is TTFT p50
// (ms), Y output token throughput (tokens/s), NaN when the run has no
// summary.
func loadPoints(ctx context.Context, db *sql.DB, runs []runInfo) ([]Point, error) {
	return loadPointsX(ctx, db, runs, `time_to_first_token_p50`)
}

// loadInteractivity is loadPoints with X the run's p50 output token
// throughput per user (tokens/s/user).
func loadInteractivity(ctx context.Context, db *sql.DB, runs []runInfo) ([]Point, error) {
	return loadPointsX(ctx, db, runs, `(SELECT m.p50 FROM run_metrics m
		WHERE m.run_id = run_summary.run_id AND m.tag = 'output_token_throughput_per_user')`)
}

// loadPointsX is loadPoints with X given by the SQL expression xSQL over
// run_summary.
func loadPointsX(ctx context.Context, db *sql.DB, runs []runInfo, xSQL string) ([]Point, error) {
	return loadPointsXY(ctx, db, runs, xSQL, `output_token_throughput`)
}

// loadPointsXY is loadPointsX with Y given by the SQL expression ySQL.
// Each point takes its group, load and mark from its run.
func loadPointsXY(ctx context.Context, db *sql.DB, runs []runInfo, xSQL, ySQL string) ([]Point, error) {
	if len(runs) == 0 {
		return nil, nil
	}
	q := `SELECT run_id, ` + xSQL + `, ` + ySQL + ` FROM run_summary
		WHERE run_id IN (?` + strings.Repeat(", ?", len(runs)-1) + `)`
	args := make([]any, len(runs))
	for i, r := range runs {
		args[i] = r.ID
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("load runs: %w", err)
	}
	defer rows.Close()
	xy := map[string][2]float64{}
	for rows.Next() {
		var id string
		var x, y sql.NullFloat64
		if err := rows.Scan(&id, &x, &y); err != nil {
			return nil, fmt.Errorf("load runs: %w", err)
		}
		xy[id] = [2]float64{orNaN(x), orNaN(y)}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load runs: %w", err)
	}
	points := make([]Point, len(runs))
	for i, r := range runs {
		v, ok := xy[r.ID]
		if !ok {
			v = [2]float64{math.NaN(), math.NaN()}
		}
		points[i] = r.point(v[0], v[1])
	}
	return points, nil
}

// point is the run's point at (x, y).
func (r runInfo) point(x, y float64) Point {
	return Point{RunID: r.ID, Group: r.Group, X: x, Y: y, Sweep: r.sweep(), Label: r.sweepLabel(), Marked: r.marked()}
}

// newestRun returns the id of the complete run with the latest start time
// (ties: the greatest id) among those where keeps, or "" when there is none.
func newestRun(ctx context.Context, db *sql.DB, where whereClause) (string, error) {
	q := `SELECT run_id FROM runs WHERE status = 'complete'`
	if where.pred != "" {
		q += ` AND ` + where.pred
	}
	var id string
	err := db.QueryRowContext(ctx, q+`
		ORDER BY start_time DESC NULLS LAST, run_id DESC LIMIT 1`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("newest run: %w", err)
	}
	return id, nil
}

// loadRequests returns the valid profiling requests of a run, by start
// time, with Start relative to the earliest of them. It returns no
// requests (and no error) for an unknown run.
func loadRequests(ctx context.Context, db *sql.DB, runID string) ([]Request, error) {
	rows, err := db.QueryContext(ctx, `SELECT request_start_ns, time_to_first_token, inter_token_latency,
			request_latency, input_sequence_length, output_sequence_length
		FROM requests
		WHERE run_id = ? AND valid AND coalesce(phase, 'profiling') = 'profiling'
		ORDER BY request_start_ns NULLS LAST, request_num`, runID)
	if err != nil {
		return nil, fmt.Errorf("load requests of %s: %w", runID, err)
	}
	defer rows.Close()
	var reqs []Request
	var starts []sql.NullInt64
	first := int64(math.MaxInt64)
	for rows.Next() {
		var start sql.NullInt64
		var ttft, itl, lat, isl, osl sql.NullFloat64
		if err := rows.Scan(&start, &ttft, &itl, &lat, &isl, &osl); err != nil {
			return nil, fmt.Errorf("load requests of %s: %w", runID, err)
		}
		if start.Valid && start.Int64 < first {
			first = start.Int64
		}
		starts = append(starts, start)
		reqs = append(reqs, Request{TTFT: orNaN(ttft), ITL: orNaN(itl), Latency: orNaN(lat), ISL: orNaN(isl), OSL: orNaN(osl)})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load requests of %s: %w", runID, err)
	}
	for i, s := range starts {
		reqs[i].Start = math.NaN()
		if s.Valid {
			reqs[i].Start = float64(s.Int64-first) / 1e9
		}
	}
	return reqs, nil
}

// orNaN returns the value of v, or NaN when it is NULL.
func orNaN(v sql.NullFloat64) float64 {
	if !v.Valid {
		return math.NaN()
	}
	return v.Float64
}

// loadPerGPU returns the points of runs with X given by xSQL over run_summary and Y the run's output token
// throughput divided by its GPU count (runs.gpu_count), as AIPerf derives
// output_token_throughput_per_gpu: NaN when the count is unknown.
func loadPerGPU(ctx context.Context, db *sql.DB, runs []runInfo, xSQL string) ([]Point, error) {
	return loadPointsXY(ctx, db, runs, xSQL,
		`output_token_throughput / (SELECT nullif(r.gpu_count, 0) FROM runs r WHERE r.run_id = run_summary.run_id)`)
}

// metricAvgSQL is the avg of the run's summary metric tag, over run_summary.
func metricAvgSQL(tag string) string {
	return `(SELECT m.avg FROM run_metrics m WHERE m.run_id = run_summary.run_id AND m.tag = '` + tag + `')`
}

// anyFiniteY reports whether a point has a finite Y.
func anyFiniteY(points []Point) bool {
	for _, p := range points {
		if !math.IsNaN(p.Y) && !math.IsInf(p.Y, 0) {
			return true
		}
	}
	return false
}
