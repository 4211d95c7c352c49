#!/usr/bin/env bash
# Real blob-store servers for the gocloud conformance tests: MinIO (s3://),
# fake-gcs-server (gs://) and Azurite (azblob://), each on 127.0.0.1.
#
#   scripts/emulators.sh install [minio|gcs|azurite|all]  build/download into the cache (once)
#   scripts/emulators.sh start   [minio|gcs|azurite|all]  install if needed, start, wait, create bucket
#   scripts/emulators.sh stop    [minio|gcs|azurite|all]  TERM (KILL after 5 s), remove data dirs
#   scripts/emulators.sh status  [minio|gcs|azurite|all]  print running/stopped per server
#   scripts/emulators.sh env     [minio|gcs|azurite|all]  export lines for the running servers
#
#   eval "$(scripts/emulators.sh start all >&2 && scripts/emulators.sh env)"; go test ./...
#
# Every server serves the bucket/container "aiperf-test". Fixed ports: MinIO 19000 (console
# 19001), fake-gcs-server 14443, Azurite 10100. Binaries are cached by version under
# ${XDG_CACHE_HOME:-$HOME/.cache}/aiperf-go/emulators; PIDs, logs and data live under
# ${TMPDIR:-/tmp}/aiperf-emulators-$UID. install and start are idempotent and serialised
# with flock, so concurrent callers neither install nor start anything twice.
# Needs: go (module proxy), node + npm (registry), flock. No curl, no Docker.
# Timeouts: AIPERF_EMULATORS_TIMEOUT (seconds to become ready, default 60).
# All three honour WriterOptions.IfNotExist (412/409 -> gcerrors.FailedPrecondition), but
# gocloud v0.47.0 azureblob panics (nil *io.PipeReader in writer.Close) when a write made
# through Writer.Write fails; Bucket.Upload takes the pipe-less path and returns the error.
set -euo pipefail

readonly MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c # what @latest resolved to; no semver tags
readonly GCS_VERSION=v1.56.1
readonly AZURITE_VERSION=3.35.0 # newest that declares Node 20 support (3.36 wants >=21, 3.37 >=22)

readonly CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/aiperf-go/emulators
readonly RUN=${TMPDIR:-/tmp}/aiperf-emulators-${UID:-$(id -u)}
readonly TIMEOUT=${AIPERF_EMULATORS_TIMEOUT:-60}
readonly BUCKET=aiperf-test

readonly MINIO_PORT=19000 MINIO_CONSOLE_PORT=19001 GCS_PORT=14443 AZURITE_PORT=10100
readonly MINIO_USER=aiperf-minio MINIO_PASSWORD=aiperf-minio-secret
# Azurite's well-known development account (public, documented by Microsoft).
readonly AZ_ACCOUNT=devstoreaccount1
readonly AZ_KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='

readonly MINIO_BIN=$CACHE/minio-$MINIO_VERSION/minio
readonly GCS_BIN=$CACHE/fake-gcs-server-$GCS_VERSION/fake-gcs-server
readonly AZURITE_DIR=$CACHE/azurite-$AZURITE_VERSION
readonly AZURITE_BIN=$AZURITE_DIR/node_modules/.bin/azurite-blob

log() { printf 'emulators: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

# --- install ---------------------------------------------------------------------------

# go_install NAME PKG VERSION BIN: `go install` PKG@VERSION and move the binary to BIN.
# Builds into a temp dir and renames, so a killed build never leaves a half binary behind.
go_install() {
	local name=$1 pkg=$2 version=$3 bin=$4
	[[ -x $bin ]] && return 0
	mkdir -p "$CACHE"
	(
		flock 9
		[[ -x $bin ]] && exit 0
		rm -rf "$CACHE/.tmp-$name".* # left by an install that was killed
		local t0 tmp
		t0=$(now)
		tmp=$(mktemp -d "$CACHE/.tmp-$name.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
		log "installing $pkg@$version (minutes the first time)"
		(cd "$tmp" && GOBIN=$tmp GOFLAGS=-buildvcs=false go install -trimpath -ldflags='-s -w' "$pkg@$version") ||
			die "go install $pkg@$version failed"
		mkdir -p "$(dirname "$bin")"
		mv "$tmp/$(basename "$pkg")" "$bin"
		log "installed $name $version in $(since "$t0")"
	) 9>"$CACHE/.$name.lock"
}

install_minio() { go_install minio github.com/minio/minio "$MINIO_VERSION" "$MINIO_BIN"; }
install_gcs() { go_install fake-gcs-server github.com/fsouza/fake-gcs-server "$GCS_VERSION" "$GCS_BIN"; }

install_azurite() {
	[[ -x $AZURITE_BIN ]] && return 0
	mkdir -p "$CACHE"
	(
		flock 9
		[[ -x $AZURITE_BIN ]] && exit 0
		rm -rf "$CACHE/.tmp-azurite".*
		local t0 tmp
		t0=$(now)
		tmp=$(mktemp -d "$CACHE/.tmp-azurite.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
		log "installing azurite@$AZURITE_VERSION with npm"
		npm install --prefix "$tmp" --no-audit --no-fund --no-save --loglevel=error \
			"azurite@$AZURITE_VERSION" >&2 || die "npm install azurite@$AZURITE_VERSION failed"
		rm -rf "$AZURITE_DIR"
		mv "$tmp" "$AZURITE_DIR" # .bin links are relative, so the tree can move
		log "installed azurite $AZURITE_VERSION in $(since "$t0")"
	) 9>"$CACHE/.azurite.lock"
}

# install_many NAME...: installs the named servers in parallel (npm's downloads overlap the
# Go builds); fails if any install fails.
install_many() {
	local pids=() n p rc=0
	for n in "$@"; do
		"install_$n" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || rc=1
	done
	return $rc
}

# --- process helpers -------------------------------------------------------------------

# pid_of NAME: prints the PID recorded for NAME if that process is alive and is still the
# server we started (its command line names it); returns 1 otherwise.
pid_of() {
	local name=$1 pid
	[[ -f $RUN/$name.pid ]] || return 1
	pid=$(<"$RUN/$name.pid")
	[[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$(marker "$name")" || return 1
	echo "$pid"
}

marker() {
	case $1 in
	minio) echo "127.0.0.1:$MINIO_PORT" ;;
	gcs) echo "fake-gcs-server" ;;
	azurite) echo "azurite" ;;
	esac
}

# port_open and http_status.
# shellcheck source=lib/net.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/net.sh"
# shellcheck source=lib/proc.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/proc.sh"

# launch NAME DATA CMD...: starts CMD detached with its log at $RUN/NAME.log and records
# its PID and data dir. fd 9 (the caller's lock) is closed so the server does not hold it.
launch() {
	local name=$1 data=$2
	shift 2
	setsid "$@" >"$RUN/$name.log" 2>&1 </dev/null 9>&- &
	echo $! >"$RUN/$name.pid"
	echo "$data" >"$RUN/$name.data"
}

# wait_ready NAME PORT PATH STATUS-REGEX: polls until GET PATH answers a matching status.
# On timeout or early exit it stops the server and shows its log tail.
wait_ready() {
	local name=$1 port=$2 path=$3 want=$4 pid deadline code
	pid=$(<"$RUN/$name.pid")
	deadline=$((SECONDS + TIMEOUT))
	while :; do
		if ! kill -0 "$pid" 2>/dev/null; then
			fail_start "$name" "exited before it was ready"
		fi
		code=$(http_status "$port" "$path")
		[[ $code =~ ^($want)$ ]] && return 0
		((SECONDS < deadline)) || fail_start "$name" "not ready on port $port after ${TIMEOUT}s (last status '${code}')"
		sleep 0.2
	done
}

fail_start() {
	local name=$1
	log "error: $name $2; last lines of $RUN/$name.log:"
	tail -n 25 "$RUN/$name.log" >&2 || true
	[[ -s $RUN/$name.log ]] || log "($name.log is empty)"
	terminate "$name" 2>/dev/null || true
	exit 1
}

# --- start -----------------------------------------------------------------------------

start_one() {
	local name=$1
	mkdir -p "$RUN"
	(
		flock 9
		if pid=$(pid_of "$name"); then
			log "$name already running (pid $pid)"
			exit 0
		fi
		"install_$name"
		local port t0
		port=$(port_var "$name")
		port_open "$port" && die "$name: port $port is already in use by another process"
		terminate "$name" # clears a dead server's PID file and data dir
		t0=$(now)
		"start_$name"
		log "started $name on 127.0.0.1:$port (pid $(<"$RUN/$name.pid")) in $(since "$t0")"
	) 9>"$RUN/$name.lock"
}

port_var() {
	case $1 in
	minio) echo $MINIO_PORT ;;
	gcs) echo $GCS_PORT ;;
	azurite) echo $AZURITE_PORT ;;
	esac
}

start_minio() {
	local data
	data=$(mktemp -d "$RUN/minio-data.XXXXXX")
	# A top-level directory in a fresh single-drive data dir is served as a bucket.
	mkdir "$data/$BUCKET"
	MINIO_ROOT_USER=$MINIO_USER MINIO_ROOT_PASSWORD=$MINIO_PASSWORD MINIO_UPDATE=off \
		launch minio "$data" "$MINIO_BIN" server "$data" \
		--address "127.0.0.1:$MINIO_PORT" --console-address "127.0.0.1:$MINIO_CONSOLE_PORT"
	wait_ready minio "$MINIO_PORT" /minio/health/ready 200
}

start_gcs() {
	local data
	data=$(mktemp -d "$RUN/gcs-data.XXXXXX")
	# Each subdirectory of -data becomes a bucket at start-up.
	mkdir -p "$data/root" "$data/seed/$BUCKET"
	launch gcs "$data" "$GCS_BIN" -scheme http -host 127.0.0.1 -port "$GCS_PORT" \
		-backend filesystem -filesystem-root "$data/root" -data "$data/seed" \
		-public-host "127.0.0.1:$GCS_PORT" -log-level warn
	wait_ready gcs "$GCS_PORT" "/storage/v1/b/$BUCKET" 200
}

start_azurite() {
	local data
	data=$(mktemp -d "$RUN/azurite-data.XXXXXX")
	launch azurite "$data" "$AZURITE_BIN" --blobHost 127.0.0.1 --blobPort "$AZURITE_PORT" \
		--location "$data" --skipApiVersionCheck --loose --disableTelemetry
	# Any HTTP answer means it listens; the container does not exist yet.
	wait_ready azurite "$AZURITE_PORT" "/$AZ_ACCOUNT?comp=list" '[0-9]{3}'
	azure_create_container || fail_start azurite "could not create container $BUCKET"
}

# azure_create_container: PUT ?restype=container signed with the dev account's shared key.
# Azurite ships no Azure SDK, so node signs the request by hand. 201 and 409 both succeed.
azure_create_container() {
	# shellcheck disable=SC2016 # the single-quoted program is JavaScript, not shell
	node -e '
const crypto = require("crypto"), http = require("http");
const [port, account, key, container] = process.argv.slice(1);
const path = `/${account}/${container}`, date = new Date().toUTCString(), version = "2021-12-02";
// VERB, 11 empty standard headers (Content-Length is empty when zero), x-ms-* headers, resource.
const toSign = ["PUT", ...Array(11).fill(""), `x-ms-date:${date}`, `x-ms-version:${version}`,
  `/${account}${path}\nrestype:container`].join("\n");
const sig = crypto.createHmac("sha256", Buffer.from(key, "base64")).update(toSign, "utf8").digest("base64");
const req = http.request({ host: "127.0.0.1", port: +port, method: "PUT", path: `${path}?restype=container`,
  headers: { "x-ms-date": date, "x-ms-version": version, "Content-Length": "0",
    Authorization: `SharedKey ${account}:${sig}` } }, (res) => {
  let body = ""; res.on("data", (d) => (body += d));
  res.on("end", () => {
    if (res.statusCode === 201 || res.statusCode === 409) process.exit(0);
    console.error(`PUT container: HTTP ${res.statusCode} ${body}`); process.exit(1);
  });
});
req.on("error", (e) => { console.error(`PUT container: ${e.message}`); process.exit(1); });
req.end();' "$AZURITE_PORT" "$AZ_ACCOUNT" "$AZ_KEY" "$BUCKET"
}

# --- stop, status, env -----------------------------------------------------------------

stop_one() {
	[[ -d $RUN ]] || return 0
	(
		flock 9
		terminate "$1"
	) 9>"$RUN/$1.lock"
}

# terminate NAME: kills NAME's server (TERM, KILL after 5 s) and removes its data dir and
# PID file. The caller holds NAME's lock.
terminate() {
	local name=$1 pid data
	if pid=$(pid_of "$name"); then
		stop_pid "$pid" "$name (pid $pid)"
	fi
	if [[ -f $RUN/$name.data ]]; then
		data=$(<"$RUN/$name.data")
		# Only ever remove a data dir this script created.
		[[ $data == "$RUN"/"$name"-data.* ]] && rm -rf -- "$data"
	fi
	rm -f "$RUN/$name.pid" "$RUN/$name.data"
}

status_one() {
	local pid
	if pid=$(pid_of "$1"); then
		echo "$1 running pid=$pid port=$(port_var "$1") data=$(<"$RUN/$1.data")"
	else
		echo "$1 stopped"
	fi
}

env_one() {
	if ! pid_of "$1" >/dev/null; then
		log "$1 is not running; no env for it"
		return 0
	fi
	case $1 in
	minio)
		echo "export AIPERF_TEST_S3_URL='s3://$BUCKET?endpoint=http://127.0.0.1:$MINIO_PORT&use_path_style=true&region=us-east-1'"
		echo "export AWS_ACCESS_KEY_ID='$MINIO_USER'"
		echo "export AWS_SECRET_ACCESS_KEY='$MINIO_PASSWORD'"
		echo "export AWS_REGION='us-east-1'"
		echo "export AIPERF_TEST_MINIO_BIN='$MINIO_BIN'"
		echo "export AIPERF_TEST_MINIO_DATA='$(<"$RUN/minio.data")'"
		echo "export AIPERF_TEST_MINIO_PORT='$MINIO_PORT'"
		;;
	gcs)
		echo "export AIPERF_TEST_GCS_URL='gs://$BUCKET'"
		echo "export STORAGE_EMULATOR_HOST='127.0.0.1:$GCS_PORT'"
		;;
	azurite)
		echo "export AIPERF_TEST_AZURE_URL='azblob://$BUCKET'"
		echo "export AZURE_STORAGE_CONNECTION_STRING='DefaultEndpointsProtocol=http;AccountName=$AZ_ACCOUNT;AccountKey=$AZ_KEY;BlobEndpoint=http://127.0.0.1:$AZURITE_PORT/$AZ_ACCOUNT;'"
		;;
	esac
}

# --- main ------------------------------------------------------------------------------

usage() {
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2
	exit 2
}

names() {
	[[ $# -eq 0 ]] && set -- all
	local n
	for n in "$@"; do
		case $n in
		all) echo minio gcs azurite ;;
		minio | s3) echo minio ;;
		gcs | gs | fake-gcs | fake-gcs-server) echo gcs ;;
		azurite | azure | azblob) echo azurite ;;
		*) die "unknown server '$n' (want minio, gcs, azurite or all)" ;;
		esac
	done
}

main() {
	[[ $# -ge 1 ]] || usage
	local cmd=$1 n
	shift
	local out list=()
	out=$(names "$@")
	read -r -d '' -a list <<<"$out" || true
	case $cmd in
	install) install_many "${list[@]}" ;;
	start)
		install_many "${list[@]}"
		for n in "${list[@]}"; do start_one "$n"; done
		;;
	stop) # in parallel: each server takes ~2 s to shut down
		for n in "${list[@]}"; do stop_one "$n" & done
		wait
		;;
	status) for n in "${list[@]}"; do status_one "$n"; done ;;
	env) for n in "${list[@]}"; do env_one "$n"; done ;;
	-h | --help | help) usage ;;
	*) die "unknown command '$cmd'" ;;
	esac
}

main "$@"
