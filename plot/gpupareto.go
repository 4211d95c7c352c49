package plot

import (
	"context"
	"database/sql"
	"math"
)

// perGPUY is the Y axis of the per-GPU Pareto charts.
const perGPUY = "output token throughput per GPU (tokens/s/GPU)"

// loadPerGPU returns the points of the named runs (or of every complete
// run) with X given by xSQL over run_summary and Y the run's output token
// throughput divided by its GPU count (runs.gpu_count), as AIPerf derives
// output_token_throughput_per_gpu: NaN when the count is unknown.
func loadPerGPU(ctx context.Context, db *sql.DB, runIDs []string, xSQL string, group groupSQL) ([]Point, error) {
	return loadPointsXY(ctx, db, runIDs, xSQL,
		`output_token_throughput / (SELECT nullif(r.gpu_count, 0) FROM runs r WHERE r.run_id = run_summary.run_id)`, group)
}

// metricAvgSQL is the avg of the run's summary metric tag, over run_summary.
func metricAvgSQL(tag string) string {
	return `(SELECT m.avg FROM run_metrics m WHERE m.run_id = run_summary.run_id AND m.tag = '` + tag + `')`
}

// addPerGPUCharts adds AIPerf's pareto_curve_throughput_per_gpu_vs_latency
// (request latency avg against throughput per GPU, both optimised as
// latency and throughput) and _vs_interactivity (output token throughput
// per user avg, maximised, against throughput per GPU) to s, when a run
// knows its GPU count; else it adds nothing.
func (w *writer) addPerGPUCharts(ctx context.Context, db *sql.DB, s *section, runIDs []string, group groupSQL, missing string) error {
	lat, err := loadPerGPU(ctx, db, runIDs, metricAvgSQL("request_latency"), group)
	if err != nil || !anyFiniteY(lat) {
		return err
	}
	p, err := pareto(lat, "request latency avg (ms)", perGPUY, Frontier(lat), true, missing)
	w.add(s, "pareto-throughput-per-gpu-vs-latency", "Throughput per GPU vs latency", p, err)
	inter, err := loadPerGPU(ctx, db, runIDs, metricAvgSQL("output_token_throughput_per_user"), group)
	if err != nil {
		return err
	}
	p, err = pareto(inter, "output token throughput per user avg (tokens/s/user)", perGPUY, FrontierMax(inter), false, missing)
	w.add(s, "pareto-throughput-per-gpu-vs-interactivity", "Throughput per GPU vs interactivity", p, err)
	return nil
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

// addGPUChart adds the run's GPUOverTime chart to s, as base-gpu, when the
// run has GPU telemetry; else it adds nothing.
func (w *writer) addGPUChart(ctx context.Context, db *sql.DB, s *section, runID, base string, reqs []Request) error {
	samples, err := loadGPUSamples(ctx, db, runID)
	if err != nil || len(samples) == 0 {
		return err
	}
	f, err := GPUOverTime(runID, reqs, samples)
	w.add(s, base+"-gpu", "GPU utilisation and power with throughput", f, err)
	return nil
}
