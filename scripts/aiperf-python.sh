#!/usr/bin/env bash
# NVIDIA's Python AIPerf, pinned, for the tests that check aiperf-report against directories
# AIPerf writes itself (cmd/aiperf-report, build tag integration).
#
#   scripts/aiperf-python.sh install  create the venv with aiperf==$AIPERF_VERSION from PyPI (once),
#                                     and the offline tiktoken cache its builtin tokenizer reads
#   scripts/aiperf-python.sh env      export lines for the installed venv (nothing if missing)
#
#   eval "$(scripts/aiperf-python.sh install >&2 && scripts/aiperf-python.sh env)"; go test -tags integration ...
#
# env prints AIPERF_TEST_PYTHON_AIPERF (the venv's aiperf executable) and TIKTOKEN_CACHE_DIR.
# `aiperf profile --tokenizer builtin` uses tiktoken's o200k_base, which tiktoken downloads on
# first use; the tests run offline, so install writes the file tiktoken would have cached
# (named sha1 of its URL) from our own embedded copy of o200k_base (tokenizer/o200k_base.vocab:
# one length byte per rank, then the ranks' bytes) and checks it against the published SHA-256.
# Everything lives under ${XDG_CACHE_HOME:-$HOME/.cache}/aiperf-go/aiperf-venv; install is
# idempotent and serialised with flock. A venv holding another aiperf version is upgraded to the
# pinned one. Needs: python3 (3.10 or newer) with venv, PyPI.
set -euo pipefail

readonly AIPERF_VERSION=0.13.0
readonly O200K_URL=https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken
readonly O200K_SHA256=446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d
readonly O200K_RANKS=199998 # tokenizer/builtin.go o200kMergeable

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly HERE
readonly ROOT=$HERE/..
readonly VENV=${XDG_CACHE_HOME:-$HOME/.cache}/aiperf-go/aiperf-venv
readonly TIKTOKEN=$VENV/tiktoken-cache

log() { printf 'aiperf-python: %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 1
}

# installed: the venv has the pinned aiperf and the tokenizer cache.
installed() {
	[[ -x $VENV/bin/aiperf && -f $VENV/.aiperf-$AIPERF_VERSION && -f $TIKTOKEN/$(o200k_key) ]]
}

# o200k_key: the name tiktoken caches o200k_base under (sha1 of its URL).
o200k_key() { printf '%s' "$O200K_URL" | sha1sum | cut -d' ' -f1; }

install() {
	installed && return 0
	mkdir -p "$(dirname "$VENV")"
	(
		flock 9
		installed && exit 0
		if [[ ! -x $VENV/bin/python ]]; then
			log "creating $VENV"
			python3 -m venv "$VENV" >&2 || die "python3 -m venv failed"
		fi
		if [[ ! -f $VENV/.aiperf-$AIPERF_VERSION ]]; then
			log "installing aiperf==$AIPERF_VERSION from PyPI"
			"$VENV/bin/pip" install -q "aiperf==$AIPERF_VERSION" >&2 || die "pip install aiperf==$AIPERF_VERSION failed"
			have=$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("aiperf"))')
			[[ $have == "$AIPERF_VERSION" ]] || die "venv has aiperf $have, want $AIPERF_VERSION"
			rm -f "$VENV"/.aiperf-*
			touch "$VENV/.aiperf-$AIPERF_VERSION"
		fi
		mkdir -p "$TIKTOKEN"
		key=$(o200k_key)
		"$VENV/bin/python" - "$ROOT/tokenizer/o200k_base.vocab" "$TIKTOKEN/$key.tmp" "$O200K_RANKS" <<'PY'
import base64, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, "rb").read()
lengths, off = data[:n], n
with open(dst, "wb") as f:
    for rank, length in enumerate(lengths):
        f.write(base64.b64encode(data[off:off + length]) + b" %d\n" % rank)
        off += length
if off != len(data):
    sys.exit("o200k_base.vocab: lengths do not add up to the file")
PY
		echo "$O200K_SHA256  $TIKTOKEN/$key.tmp" | sha256sum -c --quiet - >&2 || die "o200k_base rebuilt from tokenizer/o200k_base.vocab does not match its SHA-256"
		mv "$TIKTOKEN/$key.tmp" "$TIKTOKEN/$key"
	) 9>"$(dirname "$VENV")/aiperf-venv.lock"
}

env_lines() {
	installed || return 0
	printf 'export AIPERF_TEST_PYTHON_AIPERF=%q\n' "$VENV/bin/aiperf"
	printf 'export TIKTOKEN_CACHE_DIR=%q\n' "$TIKTOKEN"
}

case ${1:-} in
install) install ;;
env) env_lines ;;
*)
	echo "usage: $0 install|env" >&2
	exit 2
	;;
esac
