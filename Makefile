# aiperf-go. `make demo` and `make test` do all set-up on a fresh machine.
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
# NOGROW: new goroutines start with the runtime's smallest stack (2 KiB), not
# the mean of the stacks scanned at the last collection (Go's default, which
# //go:debug cannot set): a parked stream's goroutine uses ~600 bytes, and a
# collection while many goroutines are deep (a run's start, dialing) would
# start them at 4 KiB, which never shrink (issue 19; runner/turn.go). The
# linker sets the runtime's default GODEBUG as cmd/go does for go.mod's
# godebug lines; a GODEBUG variable still overrides it.
NOGROW  := -X=runtime.godebugDefault=adaptivestackstart=0
LDFLAGS := -s -w $(NOGROW) -X main.Version=$(VERSION) -X main.Commit=$(COMMIT)
CACHE   ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/aiperf-go
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(CACHE)/bin/staticcheck-$(STATICCHECK_VERSION)
ACTIONLINT_VERSION := v1.7.12
ACTIONLINT := $(CACHE)/bin/actionlint-$(ACTIONLINT_VERSION)

# Hugging Face tokenizers (--tokenizer <model id or path>) run in the Rust library
# libtokenizers.a, which scripts/tokenizers.sh builds with cargo once per version into the
# cache (minutes the first time). Code using it needs the build tag hftokenizers; every go
# command here gets that tag and the library's directory. (`go build`/`go install` without
# them still work: that binary offers only --tokenizer builtin.) Scripts run from here
# inherit both through CGO_LDFLAGS and GOFLAGS; an explicit -tags replaces GOFLAGS' tags,
# so each -tags below lists hftokenizers too.
TAGS    := hftokenizers
TOKDIR  := $(shell ./scripts/tokenizers.sh dir)
TOKLIB  := $(TOKDIR)/libtokenizers.a
export CGO_LDFLAGS := -L$(TOKDIR) $(CGO_LDFLAGS)
export GOFLAGS := $(GOFLAGS) -tags=$(TAGS)
# go-nvml (GPU telemetry) is cgo; its header marks ~100 functions deprecated.
# CGO_CFLAGS replaces Go's default (-O2 -g), so that is restated.
export CGO_CFLAGS := $(or $(CGO_CFLAGS),-O2 -g) -Wno-deprecated-declarations
# The tokenizer tests compare our token ids with independent ones, fetched and computed once
# by the tokenizer-testdata target, and must not skip under make.
TOKTEST = AIPERF_TEST_TOKENIZER_DATA=$$(./scripts/tokenizers.sh testdata) AIPERF_TEST_REQUIRE_TOKENIZERS=1 AIPERF_TEST_REQUIRE_FFMPEG=1

.PHONY: all build demo test unit race timing integration lint deploy-lint bench coldstart clean tokenizers tokenizer-testdata ffmpeg

all: build

$(TOKLIB):
	./scripts/tokenizers.sh lib >/dev/null

tokenizers: $(TOKLIB) ## build the Hugging Face tokenizer library (once per version)

tokenizer-testdata: ## Llama 3 and Qwen3 tokenizers and ground-truth ids for the tests (once)
	./scripts/tokenizers.sh testdata >/dev/null

# Each binary is linked to a temporary file, then installed (copied), as `go install`, an
# image's COPY or a package does: the linker writes its output through a memory map, and
# Linux 6.x keeps that file's page cache in 2 MiB folios, which it maps whole, so a freshly
# linked aiperf shows ~23 MB more resident memory than an installed one (BENCHMARKS.md, issue 19).
build: tokenizers ## build bin/aiperf and bin/aiperf-report (both cgo: HF tokenizers, DuckDB)
	$(GO) build -tags $(TAGS) -trimpath -ldflags '$(LDFLAGS)' -o bin/.aiperf.link ./cmd/aiperf
	install -m 0755 bin/.aiperf.link bin/aiperf && rm bin/.aiperf.link
	$(GO) build -tags $(TAGS) -trimpath -ldflags '$(LDFLAGS)' -o bin/.aiperf-report.link ./cmd/aiperf-report
	install -m 0755 bin/.aiperf-report.link bin/aiperf-report && rm bin/.aiperf-report.link

demo: build ## start the mock server, run a real benchmark, show the results
	./scripts/demo.sh

test: lint deploy-lint race timing integration ## every test: vet, staticcheck, gofmt, job definitions, -race, timing, real blob stores

ffmpeg: ## Debian's ffmpeg for MP3 and video synthesis (once)
	./scripts/ffmpeg.sh

unit: tokenizers tokenizer-testdata ffmpeg ## fast unit tests (no race detector)
	$(TOKTEST) $(GO) test -tags $(TAGS) ./...

race: tokenizers tokenizer-testdata ffmpeg
	$(TOKTEST) $(GO) test -race -tags $(TAGS) -timeout 15m ./...

timing: tokenizers ## timing-accuracy tests, which the race detector's overhead would distort
	$(GO) test -count=1 -tags timing,$(TAGS) -run 'Timing' ./runner/

# The blob-store conformance suite and fault tests against real servers
# (MinIO, fake-gcs-server, Azurite), installed and cached by
# scripts/emulators.sh; the report's headless-Chromium test
# (scripts/chromium.sh installs Debian's chromium); and the token-count test
# against a real llama.cpp server (scripts/llama-server.sh builds it once,
# ~7 min), with its /metrics against the records; the server metrics scrape
# against Debian's prometheus-node-exporter (scripts/node-exporter.sh); and
# aiperf-report's ingest of directories NVIDIA's Python AIPerf wrote itself
# (scripts/aiperf-python.sh pins aiperf in a venv). Every server is started
# here and always stopped.
integration: tokenizers
	./scripts/chromium.sh
	./scripts/emulators.sh install all
	./scripts/llama-server.sh install
	./scripts/node-exporter.sh install
	./scripts/aiperf-python.sh install
	./scripts/emulators.sh start all
	@./scripts/llama-server.sh start || { ./scripts/emulators.sh stop all; exit 1; }
	@./scripts/node-exporter.sh start || { ./scripts/emulators.sh stop all; ./scripts/llama-server.sh stop; exit 1; }
	@set -a; eval "$$(./scripts/emulators.sh env)"; eval "$$(./scripts/llama-server.sh env)"; eval "$$(./scripts/node-exporter.sh env)"; eval "$$(./scripts/aiperf-python.sh env)"; set +a; \
	AIPERF_TEST_REQUIRE_STORES=1 AIPERF_TEST_REQUIRE_LLAMA=1 AIPERF_TEST_REQUIRE_NODE_EXPORTER=1 AIPERF_TEST_REQUIRE_PYTHON_AIPERF=1 $(GO) test -count=1 -tags integration,$(TAGS) -run 'Conformance|MinIO|Chromium|Llama|NodeExporter|FaultMatrix|PythonAIPerf' ./sink/ ./runner/ ./cmd/aiperf/ ./cmd/aiperf-report/ ./plot/ ./telemetry/; \
	rc=$$?; ./scripts/emulators.sh stop all; ./scripts/llama-server.sh stop; ./scripts/node-exporter.sh stop; exit $$rc

$(STATICCHECK):
	@mkdir -p $(CACHE)/bin
	GOBIN=$(CACHE)/bin $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv $(CACHE)/bin/staticcheck $(STATICCHECK)

lint: $(STATICCHECK) tokenizers ## go vet, staticcheck, gofmt (with every build tag)
	$(GO) vet -tags timing,integration,$(TAGS) ./...
	$(STATICCHECK) -tags timing,integration,$(TAGS) ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

$(ACTIONLINT):
	@mkdir -p $(CACHE)/bin
	GOFLAGS= GOBIN=$(CACHE)/bin $(GO) install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)
	mv $(CACHE)/bin/actionlint $(ACTIONLINT)

# The job definitions under deploy/: actionlint on the GitHub workflow; the
# Kubernetes, AWS Batch and Cloud Run definitions decoded strictly into their
# APIs' Go types and the Dockerfile parsed with BuildKit's parser (deploy/ is
# a module of its own, so those modules stay out of aiperf's build); then the
# workflow's run steps executed here against the mock server.
deploy-lint: $(ACTIONLINT) build
	$(ACTIONLINT) deploy/github/nightly.yml
	cd deploy && GOFLAGS= $(GO) vet ./... && GOFLAGS= $(GO) test -count=1 ./...
	GOFLAGS= ./scripts/test-workflow.sh

bench: build ## the performance benchmarks recorded in BENCHMARKS.md
	./scripts/bench/run.sh

coldstart: build ## exec to first request, RSS and binary size of the runner; aiperf version (hyperfine) (BENCHMARKS.md)
	./scripts/bench/run.sh coldstart coldstart-version

clean:
	rm -rf bin artifacts
