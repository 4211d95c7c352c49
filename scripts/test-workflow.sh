#!/usr/bin/env bash
# Runs the run: steps of deploy/github/nightly.yml's profile job here, with
# the env the workflow sets: the service container is replaced by
# `bin/aiperf mock-server` on the port the workflow maps, `docker` by a shim
# that hands out bin/aiperf and bin/aiperf-report as the images' binaries,
# and $GITHUB_STEP_SUMMARY, $GITHUB_ENV, $GITHUB_PATH and $RUNNER_TEMP by
# temporary files. Steps that call actions (checkout, cache, OIDC,
# upload-artifact) are skipped. Checks every step succeeds and the step
# summary is written. Needs bin/ (make build).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
WORKFLOW=deploy/github/nightly.yml
for b in bin/aiperf bin/aiperf-report; do
  [ -x "$b" ] || { echo "test-workflow: $b is missing (make build)" >&2; exit 1; }
done

TMP=$(mktemp -d)
MOCK=""
cleanup() { if [ -n "$MOCK" ]; then kill "$MOCK" 2>/dev/null || true; wait "$MOCK" 2>/dev/null || true; fi; rm -rf "$TMP"; }
trap cleanup EXIT

# The helper is built once into the deploy module's own cache entry.
(cd deploy && go build -o "$TMP/workflowrun" ./workflowrun)
WF=("$TMP/workflowrun" -workflow "$WORKFLOW" -job profile)

port=$("${WF[@]}" -ports | head -1)
[ -n "$port" ] || { echo "test-workflow: the profile job maps no service port" >&2; exit 1; }
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  echo "test-workflow: port $port (the workflow's service port) is already in use" >&2; exit 1
fi
bin/aiperf mock-server --port "$port" >"$TMP/mock.log" 2>&1 &
MOCK=$!
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done

# docker: pull and build succeed without doing anything; create names the
# image; cp of /usr/local/bin/X copies bin/X.
mkdir -p "$TMP/shim"
cat >"$TMP/shim/docker" <<SHIM
#!/usr/bin/env bash
set -euo pipefail
case "\$1" in
  pull|build|rm) echo "docker \$* (shim: nothing to do)" >&2 ;;
  create) echo "\${@: -1}" ;;
  cp) src=\${2#*:}; cp "$REPO/bin/\$(basename "\$src")" "\$3" ;;
  *) echo "docker shim: \$1 is not supported" >&2; exit 1 ;;
esac
SHIM
chmod +x "$TMP/shim/docker"

unset_args=()
if ! bin/aiperf profile --help 2>&1 | grep -q -- '--threshold'; then
  echo "test-workflow: SKIP thresholds: this aiperf has no --threshold yet (AIPERF_THRESHOLD unset)"
  unset_args+=(-unset AIPERF_THRESHOLD)
fi

mkdir -p "$TMP/runner"
: >"$TMP/summary.md"
env -u AIPERF_ARTIFACT_DIR \
  PATH="$TMP/shim:$PATH" RUNNER_TEMP="$TMP/runner" GITHUB_WORKSPACE="$REPO" \
  GITHUB_STEP_SUMMARY="$TMP/summary.md" GITHUB_ENV="$TMP/github_env" GITHUB_PATH="$TMP/github_path" \
  "${WF[@]}" "${unset_args[@]}"

fail() { echo "test-workflow: $*" >&2; echo "--- step summary:" >&2; cat "$TMP/summary.md" >&2; exit 1; }
[ -s "$TMP/summary.md" ] || fail "the step summary is empty"
grep -q '## aiperf nightly: runs' "$TMP/summary.md" || fail "the step summary lacks the runs table"
[ "$(grep -c 'aiperf regression check' "$TMP/summary.md")" = 2 ] || fail "the step summary lacks the two regression checks"
ls "$TMP/runner/aiperf-store/runs/"*/ >/dev/null 2>&1 || fail "no run under \$RUNNER_TEMP/aiperf-store/runs/"
[ -s "$TMP/runner/aiperf-history/aiperf.duckdb" ] || fail "no history database"
if [ ${#unset_args[@]} -eq 0 ]; then
  ls "$TMP/runner/aiperf-store/runs/"*/verdict.json >/dev/null 2>&1 || fail "no verdict.json in the run"
  grep -q 'aiperf thresholds: PASS' "$TMP/summary.md" || fail "the step summary lacks the thresholds' verdict"
fi
echo "test-workflow: ok ($(grep -c . "$TMP/summary.md") summary lines)"
