# policyc ordinary sample: an everyday Dockerfile for running a Go service's tests in CI.
# Written by hand for policyc as ordinary configuration; compiler/ordinary.py turns it
# into Read, Write and Edit events at the event path below to measure rule breadth.
# event path: docker/test.Dockerfile

FROM golang:1.22-bookworm AS base
WORKDIR /src
ENV CGO_ENABLED=0 \
    GOFLAGS=-mod=readonly

COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download

COPY . .

FROM base AS lint
RUN go install honnef.co/go/tools/cmd/staticcheck@2023.1.7
RUN go vet ./... && staticcheck ./...

FROM base AS test
RUN --mount=type=cache,target=/root/.cache/go-build \
    go test -count=1 -coverprofile=/tmp/coverage.out ./... \
    && go tool cover -func=/tmp/coverage.out | tail -n 1

FROM base AS build
ARG VERSION=dev
RUN --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/server ./cmd/server

FROM gcr.io/distroless/static-debian12:nonroot AS runtime
COPY --from=build /out/server /server
USER nonroot:nonroot
EXPOSE 8080
ENTRYPOINT ["/server"]
