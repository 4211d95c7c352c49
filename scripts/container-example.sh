#!/usr/bin/env bash
# One benchmark configured from the environment alone, as a container job
# (Kubernetes Job, AWS Batch, Cloud Run job, GitHub Actions service) would
# run it: no flags, no files, results streamed to an object store.
#
#   docker build -t aiperf-go .
#   scripts/container-example.sh            # runs the image if docker is here,
#                                           # else the local bin/aiperf
#
# Every flag has an AIPERF_* variable: --request-rate is AIPERF_REQUEST_RATE,
# --artifact-dir is AIPERF_ARTIFACT_DIR. Store credentials come from the
# provider's usual variables (AWS_*, GOOGLE_APPLICATION_CREDENTIALS,
# AZURE_STORAGE_*), never from the URL.
set -euo pipefail
cd "$(dirname "$0")/.."

export AIPERF_MODEL=${AIPERF_MODEL:-mock-model}
export AIPERF_URL=${AIPERF_URL:-http://127.0.0.1:18282}
export AIPERF_ENDPOINT_TYPE=${AIPERF_ENDPOINT_TYPE:-chat}
export AIPERF_STREAMING=${AIPERF_STREAMING:-true}
export AIPERF_CONCURRENCY=${AIPERF_CONCURRENCY:-4}
export AIPERF_REQUEST_COUNT=${AIPERF_REQUEST_COUNT:-100}
export AIPERF_UI_TYPE=${AIPERF_UI_TYPE:-none}
# e.g. s3://bench-results/nightly?region=us-east-1 with AWS_* credentials
export AIPERF_ARTIFACT_DIR=${AIPERF_ARTIFACT_DIR:-artifacts/container-example}

mock=""
if [ "$AIPERF_URL" = http://127.0.0.1:18282 ]; then
  ./bin/aiperf mock-server --port 18282 >/dev/null 2>&1 &
  mock=$!
  trap 'kill $mock 2>/dev/null || true' EXIT
  for _ in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/18282) 2>/dev/null && break; sleep 0.05; done
fi

if command -v docker >/dev/null 2>&1 && docker image inspect aiperf-go >/dev/null 2>&1; then
  docker run --rm --network host $(env | grep -oE '^(AIPERF|AWS|AZURE_STORAGE|GOOGLE|STORAGE_EMULATOR)_[A-Z_]*' | sed 's/^/-e /') \
    -v "$PWD/artifacts:/work/artifacts" aiperf-go profile
else
  ./bin/aiperf profile
fi
