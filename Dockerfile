# Multi-stage build of two images: the static aiperf runner, with Hugging
# Face tokenizers (the default target, also --target runner), and
# aiperf-report, which links DuckDB with cgo and so runs on a glibc base
# (--target report):
#
#   docker build -t aiperf .
#   docker build --target report -t aiperf-report .
#
# The HF tokenizers run in the Rust library libtokenizers.a, which
# scripts/tokenizers.sh builds from github.com/daulet/tokenizers' source with
# cargo (a separate layer, rebuilt only when go.mod, go.sum or the script
# change). The binary is linked fully static (netgo, osusergo, -static), so
# the final image stays distroless/static. The linker warns that the Rust
# standard library's getaddrinfo/getpwuid_r need glibc at run time; the
# tokenizer never calls them (downloads go through Go's net/http).
FROM rust:1-bookworm AS rust

FROM golang:1.26 AS src
COPY --from=rust /usr/local/cargo /usr/local/cargo
COPY --from=rust /usr/local/rustup /usr/local/rustup
ENV CARGO_HOME=/usr/local/cargo RUSTUP_HOME=/usr/local/rustup \
    PATH=/usr/local/cargo/bin:$PATH XDG_CACHE_HOME=/cache
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY scripts/tokenizers.sh scripts/
RUN ./scripts/tokenizers.sh lib
COPY . .

FROM src AS build
ARG VERSION=dev
ARG COMMIT=unknown
RUN CGO_LDFLAGS="-L$(./scripts/tokenizers.sh lib)" go build -trimpath \
    -tags hftokenizers,netgo,osusergo \
    -ldflags "-s -w -linkmode external -extldflags -static -X=runtime.godebugDefault=adaptivestackstart=0 -X main.Version=${VERSION} -X main.Commit=${COMMIT}" \
    -o /out/aiperf ./cmd/aiperf

# aiperf-report: DuckDB is a static C++ library linked with cgo; the binary
# needs glibc, libstdc++ and libgcc_s at run time, which distroless/cc has.
FROM src AS build-report
ARG VERSION=dev
ARG COMMIT=unknown
RUN go build -trimpath \
    -ldflags "-s -w -X main.Version=${VERSION} -X main.Commit=${COMMIT}" \
    -o /out/aiperf-report ./cmd/aiperf-report

FROM gcr.io/distroless/cc-debian12:nonroot AS report
COPY --from=build-report /out/aiperf-report /usr/local/bin/aiperf-report
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/aiperf-report"]
CMD ["--help"]

# The runner stays the last stage, so a plain `docker build .` builds it.
FROM gcr.io/distroless/static-debian12:nonroot AS runner
COPY --from=build /out/aiperf /usr/local/bin/aiperf
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/aiperf"]
CMD ["profile", "--help"]
