# Multi-stage build of the static aiperf runner.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X main.Version=${VERSION} -X main.Commit=${COMMIT}" \
    -o /out/aiperf ./cmd/aiperf

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/aiperf /usr/local/bin/aiperf
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/aiperf"]
CMD ["profile", "--help"]
