# syntax=docker/dockerfile:1

# Build stage: a static binary (no cgo), so the runtime image needs no libc;
# the flags and tags of `make build` (see its comment).
FROM golang:1.26 AS build
WORKDIR /src
COPY . .
ARG VERSION=dev
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -tags grpcnotrace \
      -ldflags "-s -w -X main.version=${VERSION}" \
      -o /out/ptc-sidecar ./cmd/ptc-sidecar

# Runtime stage: distroless static, no shell, running as the nonroot user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ptc-sidecar /usr/local/bin/ptc-sidecar
# In a container the server listens on every interface, so that the kubelet's
# gRPC probes (or a published port) reach it; the binary's own default is
# loopback only.
ENV PTC_SIDECAR_LISTEN=0.0.0.0:50051
EXPOSE 50051
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/ptc-sidecar"]
CMD ["serve"]
