#!/usr/bin/env bash
# Runs the performance benchmarks of BENCHMARKS.md against the built-in mock
# server (a separate process on the same machine) and prints one line per
# measurement. Usage: scripts/bench/run.sh [name...]; names: events rps ttft
# lateness lateness5k rss sessions10k million storage dataset scrape scrape-memory coldstart
# coldstart-version wrk. Every run is bounded in count and time and targets 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-./bin/aiperf}
PORT=${PORT:-18181}
OUT=$(mktemp -d)
MOCK=""
trap 'stop_mock; rm -rf "$OUT"' EXIT

stop_mock() { if [ -n "$MOCK" ]; then kill "$MOCK" 2>/dev/null || true; wait "$MOCK" 2>/dev/null || true; MOCK=""; fi; }
start_mock() {
  stop_mock
  "$BIN" mock-server --port "$PORT" "$@" >"$OUT/mock.log" 2>&1 &
  MOCK=$!
  for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return; sleep 0.05; done
  echo "mock server did not start" >&2; cat "$OUT/mock.log" >&2; exit 1
}
# profile NAME ARGS...: one benchmark run into $OUT/NAME.
profile() {
  local name=$1; shift
  "$BIN" profile --model mock-model --url "http://127.0.0.1:$PORT" --ui-type none --log-level INFO \
    --random-seed 1 --artifact-dir "$OUT/$name" "$@" >"$OUT/$name.console" 2>"$OUT/$name.err" \
    || { echo "$name failed:" >&2; tail -20 "$OUT/$name.err" >&2; exit 1; }
}
# stat NAME EXPR: evaluates EXPR over the summary JSON (as d, when stored
# locally), the "run finished" log fields (as log), the console's request
# throughput (as rps), and cpu(), which converts a Go duration to seconds.
stat() {
  python3 - "$OUT/$1" "$2" <<'PY'
import json, os, re, sys
base = sys.argv[1]
d = json.load(open(base + "/profile_export_aiperf.json")) if os.path.exists(base + "/profile_export_aiperf.json") else {}
log = {}
for line in open(base + ".err"):
    if 'msg="run finished"' in line:
        log = {k: v.strip('"') for k, v in re.findall(r'(\w+)=("[^"]*"|\S+)', line)}
m = re.search(r"Request Throughput \(requests/sec\) │ +([\d,.]+)", open(base + ".console").read())
rps = float(m.group(1).replace(",", "")) if m else 0
def cpu(s):  # a Go duration: 1m2.5s, 6.75s, 253ms
    total = 0.0
    for n, unit in re.findall(r"([\d.]+)(ms|s|m|h|µs|us)", s):
        total += float(n) * {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "µs": 1e-6, "us": 1e-6}[unit]
    return total
print(eval(sys.argv[2]))
PY
}

# wrk_bin: prints the path of wrk, from PATH or installed once from Debian's
# package into the cache (apt-get download and dpkg -x: no root needed); its
# LuaJIT library comes along, found through LD_LIBRARY_PATH.
WRK_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/aiperf-go/wrk-4.1.0
wrk_bin() {
  if command -v wrk >/dev/null; then command -v wrk; return; fi
  if [ ! -x "$WRK_CACHE/usr/bin/wrk" ]; then
    local dl; dl=$(mktemp -d)
    (cd "$dl" && { apt-get download wrk libluajit-5.1-2 >/dev/null 2>&1 \
      || { apt-get update -qq >&2 && apt-get download wrk libluajit-5.1-2 >&2; }; }) \
      || { echo "wrk: apt-get download failed" >&2; rm -rf "$dl"; return 1; }
    rm -rf "$WRK_CACHE.tmp" && mkdir -p "$WRK_CACHE.tmp"
    for deb in "$dl"/*.deb; do dpkg -x "$deb" "$WRK_CACHE.tmp"; done
    rm -rf "$dl" "$WRK_CACHE" && mv "$WRK_CACHE.tmp" "$WRK_CACHE"
  fi
  echo "$WRK_CACHE/usr/bin/wrk"
}
# cpu_of CMD...: runs CMD, then prints its CPU time (user + system, seconds,
# its whole life) as a last line "cpu_s N" on stderr.
cpu_of() {
  python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("cpu_s %.3f" % (r.ru_utime + r.ru_stime), file=sys.stderr)
sys.exit(rc)' "$@"
}

# hyperfine_bin: prints the path of hyperfine, from PATH or unpacked once
# from Debian's package into the cache (no root needed), else built with cargo.
HYPERFINE_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/aiperf-go/hyperfine
hyperfine_bin() {
  if command -v hyperfine >/dev/null; then command -v hyperfine; return; fi
  if [ ! -x "$HYPERFINE_CACHE/root/usr/bin/hyperfine" ] && [ ! -x "$HYPERFINE_CACHE/bin/hyperfine" ]; then
    mkdir -p "$HYPERFINE_CACHE"
    (cd "$HYPERFINE_CACHE" && apt-get download hyperfine >/dev/null 2>&1 && dpkg -x hyperfine_*.deb root) \
      || cargo install --quiet --root "$HYPERFINE_CACHE" hyperfine >&2
  fi
  if [ -x "$HYPERFINE_CACHE/root/usr/bin/hyperfine" ]; then echo "$HYPERFINE_CACHE/root/usr/bin/hyperfine"; else echo "$HYPERFINE_CACHE/bin/hyperfine"; fi
}

want=${*:-events rps ttft ttft-jitter lateness lateness5k rss sessions10k million storage dataset scrape scrape-memory coldstart coldstart-version wrk}
echo "# aiperf-go benchmarks: $(nproc) cores, $(uname -srm), $("$BIN" version)"
for b in $want; do
  case $b in
  coldstart) # Exec of `aiperf profile` to the first request a tiny listener
    # receives, and the RSS then; median of 20 runs, no AIPERF_* variables set.
    env $(env | grep -o '^AIPERF_[A-Z0-9_]*' | sed 's/^/-u /') python3 scripts/bench/coldstart.py "$BIN" 20 ;;
  coldstart-version) # Exec to exit of `aiperf version` (issue 19: median < 20 ms):
    # hyperfine, no shell, 10 warm-up runs then 200, no AIPERF_* variables set.
    env $(env | grep -o '^AIPERF_[A-Z0-9_]*' | sed 's/^/-u /') "$(hyperfine_bin)" -N --style none \
      --warmup 10 --runs 200 --export-json "$OUT/coldstart-version.json" "$BIN version" >/dev/null
    python3 - "$OUT/coldstart-version.json" <<'PY'
import json, statistics, sys
t = sorted(json.load(open(sys.argv[1]))["results"][0]["times"])
print("coldstart_version_ms p50 %.2f p90 %.2f min %.2f mean %.2f  runs=%d" % (
    statistics.median(t) * 1e3, t[int(len(t) * 0.9) - 1] * 1e3, t[0] * 1e3, statistics.mean(t) * 1e3, len(t)))
PY
    ;;
  events) # Sustained SSE events/s: one token per event, no server delays.
    start_mock --ttft 0 --itl 0 --output-tokens 500 --no-role-chunk
    profile events --streaming --concurrency 64 --request-count 3000 --osl 500 --isl 16 --warmup-request-count 64
    echo "sse_events_per_sec $(stat events "round(d['output_token_throughput']['avg'])")  cpu_user_s=$(stat events "log['cpu_user']")" ;;
  rps) # Non-streaming requests/s.
    start_mock --ttft 0 --itl 0 --output-tokens 1
    profile rps --concurrency 64 --request-count 60000 --isl 16 --osl 1 --warmup-request-count 500
    echo "requests_per_sec $(stat rps "round(d['request_throughput']['avg'])")  errors=$(stat rps "len(d['error_summary'])")" ;;
  ttft|ttft-jitter) # TTFT overhead at 256 concurrent streams: against the scripted 50 ms
    # (includes the mock's own timer lateness), and against the times the mock
    # recorded for receiving each request and writing its first token (the
    # client's own overhead: transit, delivery and stamping).
    # "ttft" scripts every stream in lock step (all 256 first tokens in the same
    # instant); "ttft-jitter" adds 5 ms / 1 ms standard deviations.
    jitter=""; [ "$b" = ttft-jitter ] && jitter="--ttft-stddev 5 --itl-stddev 1"
    start_mock --ttft 50 --itl 5 --output-tokens 20 --record-timelines $jitter
    profile ttft --streaming --concurrency 256 --request-count 5120 --isl 64 --osl 20 --warmup-request-count 768
    echo -n "[$b] "; echo "ttft_vs_scripted_ms p50 $(stat ttft "round(d['time_to_first_token']['p50']-50, 3)") p99 $(stat ttft "round(d['time_to_first_token']['p99']-50, 3)") max $(stat ttft "round(d['time_to_first_token']['max']-50, 3)")"
    python3 - "$OUT/ttft/profile_export.jsonl" "$PORT" "$b" <<'PY'
import json, sys, urllib.request
over, transit, delivery = [], [], []
for line in open(sys.argv[1]):
    r = json.loads(line)
    m = r["metadata"]
    tl = json.load(urllib.request.urlopen("http://127.0.0.1:%s/debug/timeline/%s" % (sys.argv[2], m["x_request_id"])))
    first = next(e for e in tl["events"] if e["kind"] in (2, 3, 7))
    ttft = r["metrics"]["time_to_first_token"]["value"]
    over.append(ttft - (first["at_unix_ns"] - tl["arrival_unix_ns"]) / 1e6)
    transit.append((tl["arrival_unix_ns"] - m["request_start_ns"]) / 1e6)
    delivery.append((m["request_start_ns"] + ttft * 1e6 - first["at_unix_ns"]) / 1e6)
def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]
for name, v in (("ttft_client_overhead_ms", over), ("  of which request_transit_ms", transit), ("  of which first_token_delivery_ms", delivery)):
    print("[%s] %s p50 %.3f p99 %.3f max %.3f" % (sys.argv[3], name, q(v, 50), q(v, 99), max(v)))
PY
    ;;
  lateness) # Open-loop schedule lateness at 2,000 req/s.
    start_mock --ttft 5 --itl 1 --output-tokens 4
    profile lateness --request-rate 2000 --arrival-pattern constant --request-count 20000 --isl 16 --osl 4
    echo "lateness_ms_at_2000rps p50 $(stat lateness "log['lateness_p50_ms']") p99 $(stat lateness "log['lateness_p99_ms']") max $(stat lateness "log['lateness_max_ms']") achieved_rps $(stat lateness "round(d['request_throughput']['avg'])")" ;;
  lateness5k) # Open-loop schedule lateness at 5,000 req/s (issue 6: p99 < 1 ms).
    start_mock --ttft 0 --itl 0 --output-tokens 1
    profile lateness5k --request-rate 5000 --arrival-pattern constant --request-count 50000 --isl 16 --osl 1
    echo "lateness_ms_at_5000rps p50 $(stat lateness5k "log['lateness_p50_ms']") p99 $(stat lateness5k "log['lateness_p99_ms']") max $(stat lateness5k "log['lateness_max_ms']") achieved_rps $(stat lateness5k "round(d['request_throughput']['avg'])")" ;;
  sessions10k) # Peak RSS at 10,000 concurrent streaming sessions (issue 6: < 300 MB).
    start_mock --ttft 2000 --itl 100 --output-tokens 20
    profile sessions10k --streaming --concurrency 10000 --request-count 20000 --isl 64 --osl 20 --request-timeout-seconds 120
    echo "max_rss_mb_at_10000_streams $(stat sessions10k "log['max_rss_mb']")  requests=$(stat sessions10k "int(d['request_count']['avg'])") errors=$(stat sessions10k "len(d['error_summary'])")" ;;
  million) # 1,000,000 requests: peak RSS against a 100,000-request run (issue 6: flat memory).
    start_mock --ttft 0 --itl 0 --output-tokens 1
    profile million-100k --concurrency 64 --request-count 100000 --isl 16 --osl 1 --export-level summary
    profile million --concurrency 64 --request-count 1000000 --isl 16 --osl 1 --export-level summary
    echo "max_rss_mb 100k_requests $(stat million-100k "log['max_rss_mb']") 1M_requests $(stat million "log['max_rss_mb']") rps $(stat million "round(d['request_throughput']['avg'])")" ;;
  rss) # Peak RSS of the runner at 1,000 concurrent streams.
    start_mock --ttft 500 --itl 50 --output-tokens 40
    profile rss --streaming --concurrency 1000 --request-count 3000 --isl 550 --osl 40
    echo "max_rss_mb_at_1000_streams $(stat rss "log['max_rss_mb']")  requests=$(stat rss "int(d['request_count']['avg'])")" ;;
  storage) # The runner's CPU per 10k records with no record export, records
    # to a directory, and records streamed to MinIO, at ~20,000 records/s.
    ./scripts/emulators.sh install minio >&2
    ./scripts/emulators.sh start minio >&2
    eval "$(./scripts/emulators.sh env 2>/dev/null)"; export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION
    start_mock --ttft 0 --itl 0 --output-tokens 1
    # Alternate the three destinations, three rounds, and compare medians:
    # single runs on this shared VM vary by more than the effect measured.
    for round in 1 2 3; do
      for dest in summary dir s3; do
        case $dest in
        summary) extra=(--export-level summary) ;;
        dir) extra=() ;;
        s3) extra=(--artifact-dir "$AIPERF_TEST_S3_URL&prefix=bench/") ;;
        esac
        profile "storage-$dest-$round" --concurrency 64 --request-count 60000 --isl 16 --osl 1 "${extra[@]}"
        echo "$dest $(stat "storage-$dest-$round" "round(rps)") $(stat "storage-$dest-$round" "round((cpu(log['cpu_user']) + cpu(log['cpu_sys'])) / 60000 * 10000 * 1000)")" >>"$OUT/storage.tsv"
      done
    done
    python3 - "$OUT/storage.tsv" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    dest, rps, cpu = line.split()
    rows.setdefault(dest, []).append((float(rps), float(cpu)))
med = {d: (statistics.median(r for r, _ in v), statistics.median(c for _, c in v)) for d, v in rows.items()}
for d in ("summary", "dir", "s3"):
    print("[storage:%s] requests_per_sec %.0f  cpu_ms_per_10k_records %.0f (runs: %s)" % (d, med[d][0], med[d][1], " ".join("%.0f" % c for _, c in rows[d])))
base = med["summary"][1]
for d in ("dir", "s3"):
    print("[storage:%s] record storage share of the runner's CPU: %.1f%%" % (d, 100 * (med[d][1] - base) / med[d][1]))
PY
    ./scripts/emulators.sh stop minio >&2 ;;
  dataset) # Dataset preparation (issue 5): 100,000 synthetic 4k-token prompts and a
    # 100,000-row mooncake trace with shared hash-id prefixes, builtin tokenizer.
    # Time per preparation from the Go benchmark; peak RSS of the whole process.
    go test -c -o "$OUT/dataset.test" ./dataset/ >&2
    go test -c -o "$OUT/custom.test" ./dataset/custom/ >&2
    for pair in "dataset.test Synthetic100k4k" "custom.test Mooncake100k"; do
      set -- $pair
      /usr/bin/time -f "%M" -o "$OUT/$2.rss" "$OUT/$1" -test.run '^$' -test.bench "^Benchmark$2\$" -test.benchtime 1x >"$OUT/$2.out"
      secs=$(awk '/^Benchmark/ { for (i = 1; i < NF; i++) if ($(i+1) == "ns/op") printf "%.2f", $i / 1e9 }' "$OUT/$2.out")
      echo "dataset_prepare_$2 seconds $secs peak_rss_mb $(( $(tail -1 "$OUT/$2.rss") / 1024 ))"
    done
    # The whole runner on the same 100,000-row trace: load, inputs.json
    # (1.4 GB, streamed to the store), then 100 requests of the replay.
    python3 scripts/bench/mooncake_trace.py 100000 "$OUT/trace.jsonl"
    start_mock --ttft 0 --itl 0 --output-tokens 1
    profile trace100k --input-file "$OUT/trace.jsonl" --custom-dataset-type mooncake_trace --request-count 100 --streaming
    prep=$(grep -o 'prepared_in=[^ ]*' "$OUT/trace100k.err" | cut -d= -f2)
    echo "runner_prepare_mooncake100k prepared_in $prep max_rss_mb $(stat trace100k "log['max_rss_mb']") inputs_json_mb $(( $(wc -c <"$OUT/trace100k/inputs.json") / 1000000 ))"
    rm -rf "$OUT/trace100k" "$OUT/trace.jsonl" ;;
  scrape) # Issue 12: the cost of scraping a 2,000-series vLLM-like /metrics every 0.1 s,
    # A/B on the same open-loop streaming run (the mock's padding follows the load, so
    # every scrape differs): the runner's CPU as a share of one core, TTFT against the
    # scripted 50 ms, schedule lateness. Alternated rounds, medians compared.
    start_mock --ttft 50 --itl 5 --output-tokens 20 --metrics-padding 2000
    for round in 1 2 3; do
      for mode in off on; do
        extra=(--no-server-metrics); [ "$mode" = on ] && extra=(--server-metrics-collection-interval 0.1)
        profile "scrape-$mode-$round" --streaming --request-rate 100 --arrival-pattern constant --benchmark-duration 20 \
          --isl 64 --osl 20 --no-gpu-telemetry "${extra[@]}"
        echo "$mode $(stat "scrape-$mode-$round" "round((cpu(log['cpu_user']) + cpu(log['cpu_sys'])) * 100 / d['benchmark_duration']['avg'], 2)") $(stat "scrape-$mode-$round" "round(d['time_to_first_token']['p50'] - 50, 3)") $(stat "scrape-$mode-$round" "round(d['time_to_first_token']['p99'] - 50, 3)") $(stat "scrape-$mode-$round" "log['lateness_p99_ms']")" >>"$OUT/scrape.tsv"
      done
    done
    series=$(curl -s "http://127.0.0.1:$PORT/metrics" | grep -vc '^#')
    scrapes=$(python3 -c "import json,glob,sys; m=json.load(open(glob.glob(sys.argv[1]+'/runs/*/manifest.json')[0])); print(m['telemetry']['sources'][0]['scrapes'])" "$OUT/scrape-on-1")
    python3 - "$OUT/scrape.tsv" "$series" "$scrapes" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    mode, *v = line.split()
    rows.setdefault(mode, []).append([float(x) for x in v])
med = {m: [statistics.median(col) for col in zip(*v)] for m, v in rows.items()}
for m in ("off", "on"):
    print("[scrape:%s] cpu_pct_of_one_core %.2f ttft_minus_scripted_ms p50 %.3f p99 %.3f lateness_p99_ms %.3f (cpu runs: %s)" % (
        m, *med[m], " ".join("%.2f" % r[0] for r in rows[m])))
print("[scrape] %s series (exposition samples), %s scrapes in run 1; scraping every 0.1 s costs %.2f%% of one core" % (sys.argv[2], sys.argv[3], med["on"][0] - med["off"][0]))
PY
    ;;
  scrape-memory) # Issue 12: memory stays flat however long the scraping goes on. The
    # 2,000-series endpoint scraped as fast as it answers (interval 1 ms) for 12 s and
    # for 120 s, the longer about as many scrapes as a 1-hour run at 0.1 s (36,000):
    # flat memory is the same peak RSS for both.
    start_mock --ttft 5 --itl 1 --output-tokens 4 --metrics-padding 2000
    for secs in 12 120; do
      # Closed loop: no GC floor (open-loop runs keep a 200 MB one), so the
      # peak RSS follows the live heap.
      profile "scrapemem-$secs" --concurrency 1 --benchmark-duration "$secs" --isl 16 --osl 4 \
        --no-gpu-telemetry --server-metrics-collection-interval 0.001 --server-metrics-formats json
      echo "scrape_memory duration_s $secs scrapes $(python3 -c "import json,glob,sys; m=json.load(open(glob.glob(sys.argv[1]+'/runs/*/manifest.json')[0])); print(m['telemetry']['sources'][0]['scrapes'])" "$OUT/scrapemem-$secs") max_rss_mb $(stat "scrapemem-$secs" "log['max_rss_mb']")"
    done ;;
  wrk) # Issue 19: non-streaming requests/s against wrk on the same mock server
    # (concurrency 64, 1-token replies, no server delay), and the client's CPU
    # per request: process CPU time, start to exit, over the requests sent
    # (40,000 + 500 warmup). Alternated, three rounds; ours/wrk of the medians.
    WRK=$(wrk_bin)
    export LD_LIBRARY_PATH="$(dirname "$(dirname "$WRK")")/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    start_mock --ttft 0 --itl 0 --output-tokens 1
    : >"$OUT/wrk.tsv"
    for round in 1 2 3; do
      name="wrk-ours-$round"
      cpu_of "$BIN" profile --model mock-model --url "http://127.0.0.1:$PORT" --ui-type none --log-level INFO \
        --random-seed 1 --artifact-dir "$OUT/$name" --concurrency 64 --request-count 40000 --isl 16 --osl 1 \
        --warmup-request-count 500 >"$OUT/$name.console" 2>"$OUT/$name.err" || { tail -20 "$OUT/$name.err" >&2; exit 1; }
      ours_cpu=$(awk '/^cpu_s/ { print $2 }' "$OUT/$name.err")
      # wrk sends the body of our run's first request, with the same headers.
      python3 - "$OUT/$name/inputs.json" "$OUT/wrk.lua" <<'PY'
import json, sys
body = json.dumps(json.load(open(sys.argv[1]))["data"][0]["payloads"][0], separators=(",", ":"))
open(sys.argv[2], "w").write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
    'wrk.headers["Accept"] = "application/json"\nwrk.body = %s\n' % json.dumps(body))
PY
      cpu_of "$WRK" -t2 -c64 -d10s -s "$OUT/wrk.lua" "http://127.0.0.1:$PORT/v1/chat/completions" \
        >"$OUT/wrk-$round.out" 2>"$OUT/wrk-$round.err"
      echo "$(stat "$name" "round(rps)") $ours_cpu $(awk '/^Requests\/sec/ { print $2 }' "$OUT/wrk-$round.out") $(awk '/^cpu_s/ { print $2 }' "$OUT/wrk-$round.err") $(awk '/requests in/ { print $1 }' "$OUT/wrk-$round.out") $(grep -c 'Non-2xx' "$OUT/wrk-$round.out" || true)" >>"$OUT/wrk.tsv"
      rm -rf "${OUT:?}/$name"
    done
    python3 - "$OUT/wrk.tsv" <<'PY'
import statistics, sys
rows = [[float(x) for x in line.split()] for line in open(sys.argv[1])]
for i, (rps, cpu, wrps, wcpu, wreq, bad) in enumerate(rows, 1):
    if bad:
        sys.exit("wrk round %d: non-2xx responses" % i)
    print("[wrk] round %d: ours %.0f req/s, %.1f µs CPU/request; wrk %.0f req/s, %.1f µs CPU/request; ours/wrk %.1f%%" % (
        i, rps, cpu / 40500 * 1e6, wrps, wcpu / wreq * 1e6, 100 * rps / wrps))
ours = statistics.median(r[0] for r in rows)
wrk = statistics.median(r[2] for r in rows)
print("[wrk] median requests_per_sec ours %.0f wrk %.0f ours/wrk %.1f%%; ours cpu_us_per_request %.1f" % (
    ours, wrk, 100 * ours / wrk, statistics.median(r[1] for r in rows) / 40500 * 1e6))
PY
    ;;
  *) echo "unknown benchmark $b" >&2; exit 2 ;;
  esac
done
