# aiperf-go. `make demo` and `make test` do all set-up on a fresh machine.
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS := -s -w -X main.Version=$(VERSION) -X main.Commit=$(COMMIT)
CACHE   ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/aiperf-go
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(CACHE)/bin/staticcheck-$(STATICCHECK_VERSION)

.PHONY: all build demo test unit race timing integration lint bench clean

all: build

build: ## build bin/aiperf (static, no cgo) and bin/aiperf-report (cgo: DuckDB)
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/aiperf ./cmd/aiperf
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/aiperf-report ./cmd/aiperf-report

demo: build ## start the mock server, run a real benchmark, show the results
	./scripts/demo.sh

test: lint race timing integration ## every test: vet, staticcheck, gofmt, -race, timing, real blob stores

unit: ## fast unit tests (no race detector)
	$(GO) test ./...

race:
	$(GO) test -race -timeout 15m ./...

timing: ## timing-accuracy tests, which the race detector's overhead would distort
	$(GO) test -count=1 -tags timing -run 'Timing' ./runner/

# The blob-store conformance suite and fault tests against real servers
# (MinIO, fake-gcs-server, Azurite), installed and cached by
# scripts/emulators.sh, started here and always stopped; and the report's
# headless-Chromium test (scripts/chromium.sh installs Debian's chromium).
integration:
	./scripts/chromium.sh
	./scripts/emulators.sh install all
	./scripts/emulators.sh start all
	@set -a; eval "$$(./scripts/emulators.sh env)"; set +a; \
	AIPERF_TEST_REQUIRE_STORES=1 $(GO) test -count=1 -tags integration -run 'Conformance|MinIO|Chromium' ./sink/ ./runner/ ./cmd/aiperf-report/ ./plot/; \
	rc=$$?; ./scripts/emulators.sh stop all; exit $$rc

$(STATICCHECK):
	@mkdir -p $(CACHE)/bin
	GOBIN=$(CACHE)/bin $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv $(CACHE)/bin/staticcheck $(STATICCHECK)

lint: $(STATICCHECK) ## go vet, staticcheck, gofmt (with every build tag)
	$(GO) vet -tags timing,integration ./...
	$(STATICCHECK) -tags timing,integration ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

bench: build ## the performance benchmarks recorded in BENCHMARKS.md
	./scripts/bench/run.sh

clean:
	rm -rf bin artifacts
