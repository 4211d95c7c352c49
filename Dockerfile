# Multi-stage build of the static aiperf runner, with Hugging Face tokenizers.
#
# The HF tokenizers run in the Rust library libtokenizers.a, which
# scripts/tokenizers.sh builds from github.com/daulet/tokenizers' source with
# cargo (a separate layer, rebuilt only when go.mod, go.sum or the script
# change). The binary is linked fully static (netgo, osusergo, -static), so
# the final image stays distroless/static. The linker warns that the Rust
# standard library's getaddrinfo/getpwuid_r need glibc at run time; the
# tokenizer never calls them (downloads go through Go's net/http).
FROM rust:1-bookworm AS rust

FROM golang:1.26 AS build
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
ARG VERSION=dev
ARG COMMIT=unknown
RUN CGO_LDFLAGS="-L$(./scripts/tokenizers.sh lib)" go build -trimpath \
    -tags hftokenizers,netgo,osusergo \
    -ldflags "-s -w -linkmode external -extldflags -static -X main.Version=${VERSION} -X main.Commit=${COMMIT}" \
    -o /out/aiperf ./cmd/aiperf

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/aiperf /usr/local/bin/aiperf
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/aiperf"]
CMD ["profile", "--help"]
