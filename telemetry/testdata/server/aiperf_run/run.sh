#!/usr/bin/env bash
# Captures what AIPerf 0.13 makes of real, changing server metrics: starts
# serve.py (an OpenAI-compatible server with a vLLM-like prometheus_client
# /metrics), runs `aiperf profile` against it with warmup and timeslices, and
# keeps AIPerf's server_metrics_export.{jsonl,json,csv} here. The Go tests
# (telemetry/server_aiperf_run_test.go, export/servermetrics_test.go) replay
# the JSONL's scrapes and compare with AIPerf's JSON and CSV; they need no
# Python. Rerun only to refresh the capture:
#
#   telemetry/testdata/server/aiperf_run/run.sh
#
# Needs AIPerf's venv (ENVIRONMENT.md) and tiktoken's o200k_base file in
# $TIKTOKEN_CACHE_DIR (default /tmp/tiktoken-cache), as ENVIRONMENT.md says.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${AIPERF_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/aiperf-go/aiperf-venv}
export TIKTOKEN_CACHE_DIR=${TIKTOKEN_CACHE_DIR:-/tmp/tiktoken-cache}
port=${PORT:-18931}
out=$(mktemp -d)
"$venv/bin/python" "$here/serve.py" "$port" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$out"' EXIT
for _ in $(seq 50); do
	"$venv/bin/python" -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$port/metrics')" 2>/dev/null && break
	sleep 0.1
done
AIPERF_SERVER_METRICS_COLLECTION_INTERVAL=0.1 "$venv/bin/aiperf" profile \
	--model tiny --url "http://127.0.0.1:$port" --endpoint-type chat \
	--tokenizer builtin --request-count 120 --concurrency 3 --warmup-request-count 10 \
	--synthetic-input-tokens-mean 40 --output-tokens-mean 20 --random-seed 1 \
	--slice-duration 1.0 --server-metrics-formats json csv jsonl \
	--no-gpu-telemetry --ui none --artifact-dir "$out" >"$out/aiperf.log" 2>&1 ||
	{ tail -40 "$out/aiperf.log"; exit 1; }
for f in server_metrics_export.jsonl server_metrics_export.json server_metrics_export.csv; do
	cp "$(find "$out" -name "$f" | head -1)" "$here/$f"
done
echo "captured into $here" >&2
