#!/usr/bin/env bash
# Starts the built-in mock server, runs a real streaming benchmark against it,
# and shows the results. Used by `make demo`; ENDPOINT_TYPE picks the
# endpoint type (default chat; any of `aiperf profile --endpoint-type`'s
# that the mock serves, e.g. `make demo ENDPOINT_TYPE=messages`).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-./bin/aiperf}
PORT=${PORT:-18080}
OUT=${OUT:-artifacts/demo}
ENDPOINT_TYPE=${ENDPOINT_TYPE:-chat}

"$BIN" mock-server --port "$PORT" --ttft 20 --itl 4 --output-tokens 64 --fake-gpus 2 >/tmp/aiperf-demo-mock.log 2>&1 &
MOCK=$!
trap 'kill $MOCK 2>/dev/null; wait $MOCK 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then break; fi
  sleep 0.1
done

rm -rf "$OUT" "$OUT.duckdb"
"$BIN" profile \
  --model mock-model \
  --url "http://127.0.0.1:$PORT" \
  --endpoint-type "$ENDPOINT_TYPE" \
  --streaming \
  --concurrency 8 \
  --request-count 200 \
  --isl 128 --osl 64 \
  --random-seed 42 \
  --gpu-telemetry "http://127.0.0.1:$PORT/dcgm/metrics" \
  --artifact-dir "$OUT"

echo
echo "Artifacts in $OUT:"
ls -l "$OUT"

REPORT=${REPORT:-./bin/aiperf-report}
if [ -x "$REPORT" ]; then
  echo
  echo "The same run through aiperf-report (DuckDB):"
  "$REPORT" --db "$OUT.duckdb" ingest "$OUT"
  "$REPORT" --db "$OUT.duckdb" sql "SELECT run_id, status, model, records, round(quantile_cont(r.time_to_first_token, 0.99), 2) AS ttft_p99_ms FROM runs JOIN requests r USING (run_id) GROUP BY ALL"
  echo
  echo "Telemetry joined with the requests: tokens per joule, and the server's view of TTFT:"
  "$REPORT" --db "$OUT.duckdb" sql "SELECT run_id, server_software, gpu_count, round(t.tokens / e.joules, 3) AS tokens_per_joule, round(1000 * h.sum_increase / h.increase, 2) AS server_ttft_avg_ms
    FROM runs
    JOIN (SELECT run_id, sum(output_sequence_length) AS tokens FROM requests WHERE valid GROUP BY run_id) t USING (run_id)
    JOIN (SELECT run_id, sum(energy_j) AS joules FROM gpu_summary GROUP BY run_id) e USING (run_id)
    JOIN (SELECT run_id, increase, sum_increase FROM server_metrics_summary WHERE metric = 'vllm:time_to_first_token_seconds') h USING (run_id)"
fi
