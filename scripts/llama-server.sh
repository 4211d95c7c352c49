#!/usr/bin/env bash
# A real OpenAI-compatible LLM server for the integration tests: llama.cpp's llama-server,
# built from the source bundled in the npm package node-llama-cpp, serving a tiny
# random-weight Llama GGUF that carries the real Llama 3 tokenizer, on 127.0.0.1.
#
#   scripts/llama-server.sh install  build llama-server, make the model, extract the tokenizer (once)
#   scripts/llama-server.sh start    install if needed, start, wait for /health
#   scripts/llama-server.sh stop     TERM (KILL after 5 s) the server started by `start`
#   scripts/llama-server.sh status   print running/stopped
#   scripts/llama-server.sh env      export lines for the running server (nothing if stopped)
#   scripts/llama-server.sh verify   check the running server's tokenizer against tokenizer.json
#
#   eval "$(scripts/llama-server.sh start >&2 && scripts/llama-server.sh env)"; go test ...
#
# env prints AIPERF_TEST_LLAMA_URL, AIPERF_TEST_LLAMA_MODEL (the served alias, tiny-llama3),
# AIPERF_TEST_LLAMA_TOKENIZER (the Llama 3 8B Instruct tokenizer.json whose vocabulary and
# merges the model carries) and AIPERF_TEST_LLAMA_CHAT_TEMPLATE (a file holding the Jinja chat
# template the server applies; it is also in the GGUF and in tokenizer_config.json next to
# tokenizer.json). Token accounting of this server (llama.cpp 0.5.0 from node-llama-cpp 3.22.1),
# with encode = tokenizer.json, no special tokens added (special-token text is still parsed):
#   /v1/completions       usage.prompt_tokens = len(encode(prompt)) + 1 (the BOS it adds)
#   /v1/chat/completions  usage.prompt_tokens = len(encode(render(template, messages,
#                         add_generation_prompt=True))); for this Llama 3 template that is
#                         1 + sum(5 + len(encode(trim(content)))) + 4 (BOS; per message
#                         <|start_header_id|> role <|end_header_id|> "\n\n" ... <|eot_id|>;
#                         the assistant header)
#   both                  usage.completion_tokens = max_tokens with ignore_eos, and equals
#                         len(encode(generated text)): the model only samples word tokens
#                         ("Ġhello"), which re-encode one to one (scripts/llama/make_tiny_gguf.py)
# Check it against a running server: `verify` (pip-installs tokenizers and jinja2 into the venv).
#
# Everything is cached under ${XDG_CACHE_HOME:-$HOME/.cache}/aiperf-go/llama: the binary keyed by
# the node-llama-cpp version, the model keyed by a hash of its generator, a Python venv (numpy and
# pyyaml for gguf-py) keyed by the Python version. PID and log live in that dir's run/. install
# and start are idempotent and serialised with flock.
# Needs: npm (registry), git, gcc/g++, cmake (apt-get installs it when missing), python3 with
# venv (PyPI), go (module proxy, for github.com/daulet/tokenizers' test data), flock.
# Settings: AIPERF_LLAMA_PORT (default 18080), AIPERF_LLAMA_TIMEOUT (seconds to become healthy,
# default 60), AIPERF_LLAMA_JOBS (build parallelism, default 2). Arguments after `start` are
# passed on to llama-server.
set -euo pipefail

readonly NODE_LLAMA_CPP_VERSION=3.22.1 # carries llama.cpp v0.5.0 (commit de3ff815 squashed)
readonly TOKENIZERS_MODULE=github.com/daulet/tokenizers
readonly TOKENIZERS_VERSION=v1.22.1
readonly ALIAS=tiny-llama3
# What gguf-py needs to import (its other declared dependencies are only used by its scripts).
readonly VENV_REQUIREMENTS='numpy>=2.2.6 pyyaml>=5.1'

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly HERE
readonly CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/aiperf-go/llama
readonly RUN=$CACHE/run
readonly PORT=${AIPERF_LLAMA_PORT:-18080}
readonly TIMEOUT=${AIPERF_LLAMA_TIMEOUT:-60}
readonly JOBS=${AIPERF_LLAMA_JOBS:-2}

readonly LLAMA_DIR=$CACHE/llama.cpp-node-llama-cpp-$NODE_LLAMA_CPP_VERSION
readonly SERVER_BIN=$LLAMA_DIR/bin/llama-server
readonly GGUF_PY=$LLAMA_DIR/gguf-py
readonly VOCAB=$LLAMA_DIR/models/ggml-vocab-llama-bpe.gguf
readonly TOKENIZER_DIR=$CACHE/tokenizer-llama3-8b-instruct-$TOKENIZERS_VERSION
readonly TOKENIZER_JSON=$TOKENIZER_DIR/tokenizer.json
readonly TOKENIZER_CONFIG=$TOKENIZER_DIR/tokenizer_config.json
readonly CHAT_TEMPLATE=$TOKENIZER_DIR/chat_template.jinja
readonly GENERATOR=$HERE/llama/make_tiny_gguf.py

log() { printf 'llama-server: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

# --- install ---------------------------------------------------------------------------

# as_root CMD...: runs CMD as root (directly, or through sudo when available).
as_root() {
	if [[ $(id -u) -eq 0 ]]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		die "need root to run: $*"
	fi
}

ensure_cmake() {
	command -v cmake >/dev/null && return 0
	log "installing cmake with apt-get"
	as_root apt-get update -qq >&2 || die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends cmake >&2 ||
		die "apt-get install cmake failed"
}

# install_server: npm pack node-llama-cpp, clone its llama.cpp bundle, build llama-server
# statically, keep the binary, gguf-py and the Llama 3 vocab GGUF in $LLAMA_DIR. Builds in a temp
# dir and renames, so a killed build never leaves a half install behind.
install_server() {
	[[ -x $SERVER_BIN && -f $VOCAB && -d $GGUF_PY ]] && return 0
	mkdir -p "$CACHE"
	(
		flock 9
		[[ -x $SERVER_BIN && -f $VOCAB && -d $GGUF_PY ]] && exit 0
		rm -rf "$CACHE/.tmp-server".* # left by an install that was killed
		ensure_cmake
		local t0 tmp
		t0=$(now)
		tmp=$(mktemp -d "$CACHE/.tmp-server.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
		log "fetching node-llama-cpp@$NODE_LLAMA_CPP_VERSION with npm"
		(cd "$tmp" && npm pack --silent "node-llama-cpp@$NODE_LLAMA_CPP_VERSION" >/dev/null) ||
			die "npm pack node-llama-cpp@$NODE_LLAMA_CPP_VERSION failed"
		tar -xzf "$tmp/node-llama-cpp-$NODE_LLAMA_CPP_VERSION.tgz" -C "$tmp" package/llama/gitRelease.bundle
		git clone -q "$tmp/package/llama/gitRelease.bundle" "$tmp/src" 2>/dev/null ||
			die "git clone of the llama.cpp bundle failed"
		rm -rf "$tmp/package" "$tmp"/*.tgz
		log "building llama-server with -j$JOBS (about 6 min on 2 cores)"
		# Static libllama/libggml: the binary only needs the system's libc, libstdc++ and libgomp.
		# No network at build time: no curl, no OpenSSL, no prebuilt web UI download.
		cmake -S "$tmp/src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
			-DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
			-DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
			>"$tmp/cmake.log" 2>&1 || { tail -n 30 "$tmp/cmake.log" >&2; die "cmake configure failed"; }
		cmake --build "$tmp/build" --target llama-server -j "$JOBS" >"$tmp/build.log" 2>&1 ||
			{ tail -n 30 "$tmp/build.log" >&2; die "cmake build failed"; }
		mkdir -p "$tmp/out/bin" "$tmp/out/models"
		cp "$tmp/build/bin/llama-server" "$tmp/out/bin/"
		strip "$tmp/out/bin/llama-server" 2>/dev/null || true
		cp -r "$tmp/src/gguf-py" "$tmp/out/gguf-py"
		cp "$tmp/src/models/ggml-vocab-llama-bpe.gguf" "$tmp/out/models/"
		git -C "$tmp/src" rev-parse HEAD >"$tmp/out/COMMIT"
		"$tmp/out/bin/llama-server" --version 2>&1 | grep '^version:' >"$tmp/out/VERSION" ||
			die "built llama-server does not run"
		rm -rf "$LLAMA_DIR"
		mv "$tmp/out" "$LLAMA_DIR"
		log "installed llama-server ($(head -n 1 "$LLAMA_DIR/VERSION")) in $(since "$t0")"
	) 9>"$CACHE/.server.lock"
}

# venv_dir: prints the Python venv's directory, keyed by python3's version.
venv_dir() { echo "$CACHE/venv-py$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"; }

# venv_ok: true when the venv exists and was completed with $VENV_REQUIREMENTS.
venv_ok() { [[ -x $1/bin/python && $(cat "$1/.requirements" 2>/dev/null) == "$VENV_REQUIREMENTS" ]]; }

install_venv() {
	local venv
	venv=$(venv_dir)
	venv_ok "$venv" && return 0
	mkdir -p "$CACHE"
	(
		flock 9
		venv_ok "$venv" && exit 0
		log "creating a Python venv with $VENV_REQUIREMENTS in $venv"
		rm -rf "$venv"
		python3 -m venv "$venv" || die "python3 -m venv failed"
		# shellcheck disable=SC2086 # one word per requirement
		"$venv/bin/pip" install -q --disable-pip-version-check $VENV_REQUIREMENTS >&2 ||
			die "pip install $VENV_REQUIREMENTS failed"
		echo "$VENV_REQUIREMENTS" >"$venv/.requirements"
	) 9>"$CACHE/.venv.lock"
}

# install_tokenizer: copies the Llama 3 8B Instruct tokenizer.json and tokenizer_config.json out
# of github.com/daulet/tokenizers' test data (Go module cache), and writes its chat template.
install_tokenizer() {
	[[ -f $TOKENIZER_JSON && -f $CHAT_TEMPLATE ]] && return 0
	mkdir -p "$CACHE"
	(
		flock 9
		[[ -f $TOKENIZER_JSON && -f $CHAT_TEMPLATE ]] && exit 0
		local dir tmp
		dir=$(cd "$HERE" && go mod download -json "$TOKENIZERS_MODULE@$TOKENIZERS_VERSION" |
			sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p') ||
			die "go mod download $TOKENIZERS_MODULE@$TOKENIZERS_VERSION failed"
		[[ -n $dir && -f $dir/test/data/Meta-Llama-3-8B-Instruct.json ]] ||
			die "no test/data/Meta-Llama-3-8B-Instruct.json in $TOKENIZERS_MODULE@$TOKENIZERS_VERSION ('$dir')"
		tmp=$(mktemp -d "$CACHE/.tmp-tokenizer.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
		cp "$dir/test/data/Meta-Llama-3-8B-Instruct.json" "$tmp/tokenizer.json"
		cp "$dir/test/data/meta-llama-3-8b-instruct/tokenizer_config.json" "$tmp/tokenizer_config.json"
		python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))
open(sys.argv[2], "w").write(c["chat_template"])' "$tmp/tokenizer_config.json" "$tmp/chat_template.jinja" ||
			die "no chat_template in tokenizer_config.json"
		chmod -R u+w,go+rX "$tmp"
		rm -rf "$TOKENIZER_DIR"
		mv "$tmp" "$TOKENIZER_DIR"
		log "extracted the Llama 3 tokenizer into $TOKENIZER_DIR"
	) 9>"$CACHE/.tokenizer.lock"
}

# model_path: the model's cache path, keyed by the generator's content and the vocab's version.
model_path() {
	local key
	key=$( (cat "$GENERATOR" && echo "$NODE_LLAMA_CPP_VERSION $TOKENIZERS_VERSION") | sha256sum | cut -c1-12)
	echo "$CACHE/model-$key/$ALIAS.gguf"
}

install_model() {
	local model
	model=$(model_path)
	[[ -f $model ]] && return 0
	(
		flock 9
		[[ -f $model ]] && exit 0
		local t0 tmp
		t0=$(now)
		tmp=$(mktemp -d "$CACHE/.tmp-model.XXXXXX")
		chmod 755 "$tmp"
		trap 'rm -rf "$tmp"' EXIT
		PYTHONPATH=$GGUF_PY "$(venv_dir)/bin/python" "$GENERATOR" --vocab "$VOCAB" \
			--tokenizer "$TOKENIZER_JSON" --tokenizer-config "$TOKENIZER_CONFIG" \
			--name "$ALIAS" --out "$tmp/$ALIAS.gguf" >&2 || die "making the tiny GGUF failed"
		rm -rf "$(dirname "$model")"
		mv "$tmp" "$(dirname "$model")"
		log "made $model ($(du -h "$model" | cut -f1)) in $(since "$t0")"
	) 9>"$CACHE/.model.lock"
}

install_all() {
	install_server
	install_venv
	install_tokenizer
	install_model
}

# --- process helpers -------------------------------------------------------------------

# server_pid: prints the PID recorded by `start` if that process is alive and still the
# llama-server we started on $PORT; returns 1 otherwise.
server_pid() {
	local pid
	[[ -f $RUN/llama-server.pid ]] || return 1
	pid=$(<"$RUN/llama-server.pid")
	[[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "llama-server .*--alias $ALIAS" || return 1
	echo "$pid"
}

# recorded_port: the port the running server was started on (AIPERF_LLAMA_PORT at start time).
recorded_port() { cat "$RUN/llama-server.port" 2>/dev/null || echo "$PORT"; }

# port_open and http_status.
# shellcheck source=lib/net.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/net.sh"
# shellcheck source=lib/proc.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/proc.sh"

fail_start() {
	log "error: llama-server $1; last lines of $RUN/llama-server.log:"
	tail -n 25 "$RUN/llama-server.log" >&2 || true
	terminate 2>/dev/null || true
	log "full log: $RUN/llama-server.log"
	exit 1
}

# --- start, stop, status, env ----------------------------------------------------------

start_server() {
	install_all
	mkdir -p "$RUN"
	(
		flock 9
		local pid t0 deadline code model
		if pid=$(server_pid); then
			log "already running on 127.0.0.1:$(recorded_port) (pid $pid)"
			exit 0
		fi
		port_open "$PORT" && die "port $PORT is already in use by another process (set AIPERF_LLAMA_PORT)"
		terminate
		model=$(model_path)
		t0=$(now)
		setsid "$SERVER_BIN" -m "$model" --host 127.0.0.1 --port "$PORT" -c 16384 -np 4 -t 2 \
			--alias "$ALIAS" --no-webui --metrics "$@" >"$RUN/llama-server.log" 2>&1 </dev/null 9>&- &
		echo $! >"$RUN/llama-server.pid"
		echo "$PORT" >"$RUN/llama-server.port"
		deadline=$((SECONDS + TIMEOUT))
		while :; do
			kill -0 "$(<"$RUN/llama-server.pid")" 2>/dev/null || fail_start "exited before it was ready"
			code=$(http_status "$PORT" /health)
			[[ $code == 200 ]] && break
			((SECONDS < deadline)) || fail_start "not healthy on port $PORT after ${TIMEOUT}s (last status '$code')"
			sleep 0.2
		done
		log "started on 127.0.0.1:$PORT (pid $(<"$RUN/llama-server.pid")) in $(since "$t0"); log: $RUN/llama-server.log"
	) 9>"$RUN/llama-server.lock"
}

stop_server() {
	[[ -d $RUN ]] || return 0
	(
		flock 9
		terminate
	) 9>"$RUN/llama-server.lock"
}

# terminate: kills the server we started (TERM, KILL after 5 s) and removes its PID file. The
# caller holds the lock.
terminate() {
	local pid
	if pid=$(server_pid); then
		stop_pid "$pid" "(pid $pid)"
	fi
	rm -f "$RUN/llama-server.pid" "$RUN/llama-server.port"
}

status_server() {
	local pid
	if pid=$(server_pid); then
		echo "llama-server running pid=$pid url=http://127.0.0.1:$(recorded_port) model=$(model_path)"
	else
		echo "llama-server stopped"
	fi
}

env_server() {
	if ! server_pid >/dev/null; then
		log "not running; no env for it"
		return 0
	fi
	echo "export AIPERF_TEST_LLAMA_URL='http://127.0.0.1:$(recorded_port)'"
	echo "export AIPERF_TEST_LLAMA_MODEL='$ALIAS'"
	echo "export AIPERF_TEST_LLAMA_TOKENIZER='$TOKENIZER_JSON'"
	echo "export AIPERF_TEST_LLAMA_CHAT_TEMPLATE='$CHAT_TEMPLATE'"
}

# verify_server: compares the running server's /tokenize and usage counts with tokenizer.json
# (through the Python `tokenizers` package, installed into the venv on first use).
verify_server() {
	server_pid >/dev/null || die "not running; run start first"
	local venv
	venv=$(venv_dir)
	"$venv/bin/python" -c 'import tokenizers, jinja2' 2>/dev/null ||
		"$venv/bin/pip" install -q --disable-pip-version-check tokenizers jinja2 >&2 ||
		die "pip install tokenizers jinja2 failed"
	"$venv/bin/python" "$HERE/llama/verify_tokenizer.py" --url "http://127.0.0.1:$(recorded_port)" \
		--model "$ALIAS" --tokenizer "$TOKENIZER_JSON" --tokenizer-config "$TOKENIZER_CONFIG"
}

# --- main ------------------------------------------------------------------------------

usage() {
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2
	exit 2
}

main() {
	[[ $# -ge 1 ]] || usage
	local cmd=$1
	shift
	case $cmd in
	install) install_all ;;
	start) start_server "$@" ;;
	stop) stop_server ;;
	status) status_server ;;
	env) env_server ;;
	verify) verify_server ;;
	-h | --help | help) usage ;;
	*) die "unknown command '$cmd'" ;;
	esac
}

main "$@"
