# syntax=docker/dockerfile:1
#
# The library service as a container image: a static binary on distroless, run as nonroot.
#
#   docker build -t library:dev .
#   docker run --rm -p 127.0.0.1:8080:8080 -e HTTP_ADDR=:8080 library:dev   # serve, in memory, to this machine
#   docker run --rm -e DATABASE_URL=... library:dev migrate up    # apply migrations, then exit
#
# ENTRYPOINT is the binary and CMD its default arguments, so `migrate up|down|status` are just
# other arguments. The image has no shell: Kubernetes probes are HTTP (GET /healthz, /readyz),
# and there is no HEALTHCHECK.

# The build runs on the builder's own platform and cross-compiles (CGO is off), so a
# `docker buildx build --platform linux/amd64,linux/arm64` needs no emulation.
FROM --platform=$BUILDPLATFORM golang:1.26-bookworm AS build
WORKDIR /src

# Modules first, as a layer of their own: it is rebuilt only when go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download && go mod verify

COPY . .
ARG TARGETOS TARGETARCH
# The build cache mount (BuildKit) keeps compiled packages between builds; it is not in the image.
RUN --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -buildvcs=false -trimpath -ldflags='-s -w' -o /out/library ./cmd/library

# static-debian12 has CA certificates (SMTP and PostgreSQL over TLS), tzdata and /etc/passwd
# with the nonroot user, and nothing else: no shell, no package manager.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/library /library
# nonroot, by number, so that Kubernetes' runAsNonRoot can check it without reading /etc/passwd.
USER 65532:65532
# HTTP_ADDR defaults to :8080, and to the container's own 127.0.0.1:8080 while the service runs
# without sign-in (set it to :8080 then, and publish the port on the host's loopback only).
EXPOSE 8080
ENTRYPOINT ["/library"]
CMD ["serve"]
