# Everything here needs only Go and the Go module proxy: buf, protoc-gen-go,
# protoc-gen-go-grpc and grpcurl are pinned tools in go.mod, run through
# `go tool`. The two Python targets (generate-python, test-python) also need
# Debian's protobuf-compiler, protobuf-compiler-grpc, python3-grpcio and
# python3-protobuf.

GO      ?= go
BIN     ?= bin/ptc-sidecar
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
IMAGE   ?= ptc-sidecar:$(VERSION)
ARGS    ?=

# The Go sources that gofmt checks: all but the generated ones.
GO_SOURCES = $(shell find . -name '*.go' -not -path './gen/*' -not -path './.git/*')

.PHONY: build test generate generate-python test-python lint breaking bench loadbench fuzz docker run clean

## build: a static binary in bin/ with the version stamped in
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w -X main.version=$(VERSION)' -o $(BIN) ./cmd/ptc-sidecar

## test: every test, end-to-end tests against the real binary included
test:
	$(GO) test ./...

## generate: regenerate gen/ from proto/ (byte for byte what is committed);
## old generated files go first, so a removed proto leaves nothing behind
generate:
	find gen -name '*.pb.go' -delete
	$(GO) tool buf generate

## generate-python: regenerate gen/python (Python stubs for clients and
## examples/python) byte for byte; needs protoc and grpc_python_plugin
## (Debian: protobuf-compiler, protobuf-compiler-grpc) besides Go
generate-python:
	rm -rf gen/python
	$(GO) tool buf generate --template buf.gen.python.yaml

## test-python: run the Python example agent against the real server, over
## both tool protocols; needs Debian's python3-grpcio and python3-protobuf
test-python:
	examples/python/run.sh

## lint: gofmt, go vet and buf lint
lint:
	@unformatted="$$(gofmt -l $(GO_SOURCES))"; \
	if [ -n "$$unformatted" ]; then echo "gofmt needed on:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool buf lint

## breaking: fail on wire-incompatible proto changes against the main branch
breaking:
	$(GO) tool buf breaking --against '.git#branch=main'

## bench: every benchmark, with allocations
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## loadbench: the sidecar over gRPC against an echo server of the same
## grpc-go, alternating phases (see bench/cmd/loadbench); pass flags with
## LOADBENCH_ARGS="-clients 1,64 -duration 5s"
LOADBENCH_ARGS ?=
loadbench:
	$(GO) run ./bench/cmd/loadbench $(LOADBENCH_ARGS)

## fuzz: a short run of each fuzz target of the interpreter (FUZZTIME each)
FUZZTIME ?= 10s
fuzz:
	$(GO) test ./lisp -run '^$$' -fuzz '^FuzzRead$$' -fuzztime $(FUZZTIME)
	$(GO) test ./lisp -run '^$$' -fuzz '^FuzzEval$$' -fuzztime $(FUZZTIME)

## docker: build the container image (needs a Docker engine)
docker:
	docker build --build-arg VERSION=$(VERSION) -t $(IMAGE) .

## run: run the server in the foreground; pass flags with ARGS="--log-level debug"
run:
	$(GO) run ./cmd/ptc-sidecar serve $(ARGS)

clean:
	rm -rf bin
