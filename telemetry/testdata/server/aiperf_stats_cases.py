"""Expected server-metrics statistics computed by AIPerf 0.13 itself.

Builds gauge, counter and histogram time series (a baseline part before the
profiling window, then the window), runs AIPerf's own compute_stats on them
exactly as its accumulator does for the profiling phase (time filter from the
first window sample to the last), and writes inputs and outputs to
aiperf_stats_cases.json for server_aiperf_stats_test.go.

Run with AIPerf's venv (see ENVIRONMENT.md):
  ~/.cache/aiperf-go/aiperf-venv/bin/python aiperf_stats_cases.py
"""

import json
import math
import os

import numpy as np

from aiperf.common.enums import PrometheusMetricType as T
from aiperf.common.models.server_metrics_models import MetricSample, TimeRangeFilter
from aiperf.server_metrics.export_stats import compute_stats
from aiperf.server_metrics.storage import HistogramTimeSeries, ScalarTimeSeries

rng = np.random.default_rng(20260512)
cases = []


def times(n, start=1_700_000_000_000_000_000, step=100_000_000, jitter=0):
    t, out = start, []
    for _ in range(n):
        out.append(int(t))
        t += step + (int(rng.integers(-jitter, jitter + 1)) if jitter else 0)
    return out


def window_filter(ts, first):
    start = ts[first]
    end = ts[-1] if ts[-1] > start else start + 1
    return TimeRangeFilter(start_ns=start, end_ns=end)


def add_scalar(name, typ, ts, vals, first, slice_s=None):
    s = ScalarTimeSeries()
    for t, v in zip(ts, vals):
        s.append(t, MetricSample(value=float(v)))
    out = compute_stats(typ, s, window_filter(ts, first), slice_duration=slice_s)
    cases.append({
        "name": name, "type": str(typ), "ts": ts, "values": [float(v) for v in vals],
        "window_from": first, "slice_s": slice_s,
        "expect": out.model_dump(mode="json", exclude_none=True),
    })


def add_hist(name, les, ts, obs_per_step, first, slice_s=None, reset_at=None):
    """obs_per_step: list of arrays of observations added at each step."""
    bounds = [float("inf") if le == "+Inf" else float(le) for le in les]
    cum = np.zeros(len(les))
    total_sum, total_count = 0.0, 0.0
    snaps = []
    s = HistogramTimeSeries()
    for i, (t, obs) in enumerate(zip(ts, obs_per_step)):
        if reset_at is not None and i == reset_at:
            cum[:] = 0
            total_sum, total_count = 0.0, 0.0
        for x in obs:
            for j, b in enumerate(bounds):
                if x <= b:
                    cum[j] += 1
        total_sum += float(np.sum(obs)) if len(obs) else 0.0
        total_count += len(obs)
        buckets = {le: float(c) for le, c in zip(les, cum)}
        snaps.append({"buckets": [float(c) for c in cum], "sum": total_sum, "count": total_count})
        s.append(t, MetricSample(buckets=buckets, sum=total_sum, count=total_count))
    out = compute_stats(T.HISTOGRAM, s, window_filter(ts, first), slice_duration=slice_s)
    cases.append({
        "name": name, "type": "histogram", "ts": ts, "les": les, "snapshots": snaps,
        "window_from": first, "slice_s": slice_s,
        "expect": out.model_dump(mode="json", exclude_none=True),
    })


# --- gauges -------------------------------------------------------------------
ts = times(40, jitter=3_000_000)
add_scalar("gauge_queue", T.GAUGE, ts, rng.integers(0, 8, 40), 10, slice_s=1.0)
add_scalar("gauge_continuous", T.GAUGE, ts, rng.normal(0.4, 0.1, 40), 5)
add_scalar("gauge_constant", T.GAUGE, times(12), [0.1] * 12, 3, slice_s=0.35)
add_scalar("gauge_single", T.GAUGE, times(3), [1.0, 2.0, 7.5], 2, slice_s=0.5)
add_scalar("unknown_mixed", T.UNKNOWN, times(25), rng.normal(100, 30, 25), 0, slice_s=0.7)

# --- counters -----------------------------------------------------------------
ts = times(60, jitter=5_000_000)
add_scalar("counter_tokens", T.COUNTER, ts, np.cumsum(rng.integers(0, 500, 60)), 20, slice_s=1.0)
vals = list(np.cumsum(rng.integers(1, 50, 30)))
vals[18:] = [v - vals[17] for v in vals[18:]]  # the server restarts at 18
add_scalar("counter_reset", T.COUNTER, times(30), vals, 8, slice_s=0.5)
add_scalar("counter_no_baseline", T.COUNTER, times(15), np.cumsum(rng.random(15) * 3), 0, slice_s=0.3)
add_scalar("counter_flat", T.COUNTER, times(10), [42.0] * 10, 4)
add_scalar("counter_one_sample", T.COUNTER, times(4), [1, 2, 3, 9], 3, slice_s=1.0)

# --- histograms ---------------------------------------------------------------
LAT = ["0.001", "0.005", "0.01", "0.02", "0.04", "0.06", "0.08", "0.1", "0.25", "0.5",
       "0.75", "1.0", "2.5", "5.0", "7.5", "10.0", "+Inf"]
ts = times(50, jitter=2_000_000)
add_hist("hist_ttft", LAT, ts, [rng.lognormal(-3, 0.8, int(rng.integers(0, 6))) for _ in ts], 10, slice_s=1.0)
add_hist("hist_one_per_interval", LAT, times(40), [[float(rng.uniform(0.021, 0.039))] for _ in range(40)], 5)
add_hist("hist_constant", LAT, times(30), [[0.03] * 2 for _ in range(30)], 3)
add_hist("hist_tight", LAT, times(30), [[0.0300 + 1e-6 * i] for i in range(30)], 0)
add_hist("hist_inf_tail", ["0.5", "1.0", "2.0", "+Inf"], times(25),
         [np.concatenate([rng.uniform(0, 2, 3), rng.uniform(4, 9, 1)]) for _ in range(25)], 5)
add_hist("hist_single_inf", ["1.0", "+Inf"], times(6), [[0.5], [0.7], [30.0], [], [0.2], []], 1)
add_hist("hist_big", LAT, times(8), [rng.exponential(0.3, 40000) for _ in range(8)], 2)
add_hist("hist_reset", LAT, times(20), [rng.exponential(0.2, 5) for _ in range(20)], 4, reset_at=12)
add_hist("hist_empty_window", LAT, times(10), [[0.1]] * 5 + [[]] * 5, 5, slice_s=0.2)
add_hist("hist_tokens", ["1.0", "8.0", "16.0", "32.0", "64.0", "128.0", "256.0", "512.0", "1024.0",
                         "2048.0", "4096.0", "+Inf"], times(30),
         [rng.integers(1, 3000, int(rng.integers(1, 4))).astype(float) for _ in range(30)], 6, slice_s=0.9)

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "aiperf_stats_cases.json"), "w") as f:
    json.dump(cases, f, indent=1)
print(f"{len(cases)} cases")
