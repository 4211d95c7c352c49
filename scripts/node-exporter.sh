#!/usr/bin/env bash
# A real Prometheus endpoint for the server metrics tests: Debian's prometheus-node-exporter
# (Go's client library: counters, gauges, histograms, summaries, thousands of series that
# change every scrape), on 127.0.0.1.
#
#   scripts/node-exporter.sh install  apt-get install prometheus-node-exporter when missing
#   scripts/node-exporter.sh start    install if needed, start, wait for /metrics
#   scripts/node-exporter.sh stop     TERM (KILL after 5 s) the exporter started by `start`
#   scripts/node-exporter.sh status   print running/stopped
#   scripts/node-exporter.sh env      export line for the running exporter (nothing if stopped)
#
#   eval "$(scripts/node-exporter.sh start >&2 && scripts/node-exporter.sh env)"; go test ./telemetry/
#
# env prints AIPERF_TEST_NODE_EXPORTER, the exporter's metrics URL, and
# AIPERF_TEST_NODE_EXPORTER_TEXTFILES, the directory its textfile collector serves *.prom files
# from (node_exporter 1.5 has no histogram of its own; a test writes one there). The telemetry
# tests scrape it when it is set (and fail without it when AIPERF_TEST_REQUIRE_NODE_EXPORTER=1).
# The package is installed system-wide by apt (it is not auto-started: Debian's service is not
# enabled in a container); PID and log live under ${TMPDIR:-/tmp}/aiperf-node-exporter-$UID.
# install and start are idempotent and serialised with flock.
# Settings: AIPERF_NODE_EXPORTER_PORT (default 9100), AIPERF_NODE_EXPORTER_TIMEOUT (seconds
# to become ready, default 30).
set -euo pipefail

readonly PORT=${AIPERF_NODE_EXPORTER_PORT:-9100}
readonly TIMEOUT=${AIPERF_NODE_EXPORTER_TIMEOUT:-30}
readonly RUN=${TMPDIR:-/tmp}/aiperf-node-exporter-${UID:-$(id -u)}
readonly BIN=/usr/bin/prometheus-node-exporter

log() { printf 'node-exporter: %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 1
}

# shellcheck source=lib/net.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/net.sh"
# shellcheck source=lib/proc.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/proc.sh"

# as_root CMD...: runs CMD as root (directly, or through sudo when available).
as_root() {
	if [[ $(id -u) == 0 ]]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		die "need root (or sudo) to run: $*"
	fi
}

install() {
	[[ -x $BIN ]] && return 0
	mkdir -p "$RUN"
	(
		flock 9
		[[ -x $BIN ]] && exit 0
		log "installing prometheus-node-exporter with apt-get"
		as_root apt-get update -qq >&2 || die "apt-get update failed"
		DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends \
			prometheus-node-exporter >&2 || die "apt-get install prometheus-node-exporter failed"
		[[ -x $BIN ]] || die "$BIN missing after install"
	) 9>"$RUN/install.lock"
}

# pid_of: prints the PID of the exporter we started if it is alive and still ours.
pid_of() {
	local pid
	[[ -f $RUN/pid ]] || return 1
	pid=$(<"$RUN/pid")
	[[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "127.0.0.1:$PORT" || return 1
	echo "$pid"
}

start() {
	install
	mkdir -p "$RUN"
	(
		flock 9
		if pid=$(pid_of); then
			log "already running (pid $pid)"
			exit 0
		fi
		port_open "$PORT" && die "port $PORT is already in use by another process"
		# Collectors that read the host only; none that need privileges or write anything.
		mkdir -p "$RUN/textfiles"
		setsid "$BIN" --web.listen-address="127.0.0.1:$PORT" --no-collector.systemd \
			--collector.textfile.directory="$RUN/textfiles" \
			>"$RUN/log" 2>&1 </dev/null 9>&- &
		echo $! >"$RUN/pid"
		local deadline=$((SECONDS + TIMEOUT)) pid code
		pid=$(<"$RUN/pid")
		while :; do
			kill -0 "$pid" 2>/dev/null || { tail -n 20 "$RUN/log" >&2; die "exited before it was ready"; }
			code=$(http_status "$PORT" /metrics)
			[[ $code == 200 ]] && break
			((SECONDS < deadline)) || {
				stop_pid "$pid" "node-exporter (pid $pid)"
				die "not ready on port $PORT after ${TIMEOUT}s (last status '$code')"
			}
			sleep 0.2
		done
		log "started on 127.0.0.1:$PORT (pid $pid)"
	) 9>"$RUN/run.lock"
}

stop() {
	[[ -d $RUN ]] || return 0
	(
		flock 9
		if pid=$(pid_of); then
			stop_pid "$pid" "node-exporter (pid $pid)"
		fi
		rm -f "$RUN/pid"
	) 9>"$RUN/run.lock"
}

status() {
	local pid
	if pid=$(pid_of); then
		echo "node-exporter running pid=$pid port=$PORT"
	else
		echo "node-exporter stopped"
	fi
}

env_lines() {
	if ! pid_of >/dev/null; then
		log "not running; no env"
		return 0
	fi
	echo "export AIPERF_TEST_NODE_EXPORTER='http://127.0.0.1:$PORT/metrics'"
	echo "export AIPERF_TEST_NODE_EXPORTER_TEXTFILES='$RUN/textfiles'"
}

case ${1:-} in
install) install ;;
start) start ;;
stop) stop ;;
status) status ;;
env) env_lines ;;
*)
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2
	exit 2
	;;
esac
