# Everything here needs only Go and the Go module proxy: buf, protoc-gen-go,
# protoc-gen-go-grpc and grpcurl are pinned in tools/go.mod, outside the
# product's module graph, and run as `go tool -modfile=tools/go.mod NAME`
# ($(TOOL) NAME below). The two Python targets (generate-python,
# test-python) also need Debian's protobuf-compiler, protobuf-compiler-grpc,
# python3-grpcio and python3-protobuf.

GO      ?= go
BIN     ?= bin/ptc-sidecar
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
IMAGE   ?= ptc-sidecar:$(VERSION)
ARGS    ?=
TOOL    = $(GO) tool -modfile=tools/go.mod

# The Go sources that gofmt checks: all but the generated ones.
GO_SOURCES = $(shell find . -name '*.go' -not -path './gen/*' -not -path './.git/*')

.PHONY: build test test-race load fuzz fuzz-long fuzz-check generate generate-python test-python lint breaking bench loadbench docker run clean

## build: a static binary in bin/ with the version stamped in
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w -X main.version=$(VERSION)' -o $(BIN) ./cmd/ptc-sidecar

## test: every test, end-to-end tests against the real binary included
test:
	$(GO) test ./...

## test-race: every test under the race detector
test-race:
	$(GO) test -race ./...

## load: 64 clients of mixed RPCs against the real binary for LOAD_SECONDS
LOAD_SECONDS ?= 60
load:
	PTC_LOAD_SECONDS=$(LOAD_SECONDS) $(GO) test -count=1 -run '^TestLoad$$' -v ./cmd/ptc-sidecar

# Every fuzz target as package:Name; fuzz-check fails when one is missing.
FUZZ_TARGETS = \
	lisp:FuzzRead lisp:FuzzEval lisp:FuzzBuiltins lisp:FuzzDecodeJSON lisp:FuzzParseEDNSample \
	server:FuzzDecodeValue server:FuzzDecodeRequest server:FuzzToMessages \
	strategies:FuzzRender strategies:FuzzChatStrategies strategies:FuzzParseSignature strategies:FuzzChunkedTokenCount \
	internal/bpe:FuzzCountMatchesLibrary \
	internal/trace:FuzzRenderLayout
FUZZTIME ?= 20s

## fuzz: each fuzz target for FUZZTIME (20s), one after the other; crashers
## land in the package's testdata/fuzz/ and become regression tests.
## Go 1.26's fuzzing engine can report a bare "context deadline exceeded"
## when -fuzztime runs out mid-execution (go.dev/issue/75804, fixed in Go
## 1.27). That outcome writes no failing input; it is reported and the run
## goes on. Any run that writes a failing input, or fails otherwise, fails.
fuzz: fuzz-check
	@set -e; log=$$(mktemp); trap 'rm -f $$log' EXIT; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		if ! $(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) ./$$pkg >$$log 2>&1; then \
			if grep -q 'Failing input written' $$log || ! grep -qx '    context deadline exceeded' $$log; then \
				cat $$log; echo "$$name FAILED: the crasher is in ./$$pkg/testdata/fuzz/$$name/"; exit 1; \
			fi; \
			echo "$$name (./$$pkg): the engine's end-of-fuzztime deadline race (go.dev/issue/75804), no failing input"; \
		fi; \
		echo "$$name (./$$pkg): $$(grep '^fuzz: elapsed' $$log | tail -1)"; \
	done

## fuzz-long: each fuzz target for 5 minutes
fuzz-long:
	$(MAKE) fuzz FUZZTIME=5m

## fuzz-check: every func Fuzz in the tree is listed in FUZZ_TARGETS
fuzz-check:
	@missing=$$(grep -rhoE --include='*_test.go' --exclude-dir=gen --exclude-dir=.git '^func Fuzz[A-Za-z0-9_]+' . | sed 's/func //' | sort -u | \
		while read n; do case " $(FUZZ_TARGETS) " in *":$$n "*) ;; *) echo $$n;; esac; done); \
	if [ -n "$$missing" ]; then echo "fuzz targets missing from FUZZ_TARGETS: $$missing"; exit 1; fi

## generate: regenerate gen/ from proto/ (byte for byte what is committed);
## old generated files go first, so a removed proto leaves nothing behind
generate:
	find gen -name '*.pb.go' -delete
	$(TOOL) buf generate

## generate-python: regenerate gen/python (Python stubs for clients and
## examples/python) byte for byte; needs protoc and grpc_python_plugin
## (Debian: protobuf-compiler, protobuf-compiler-grpc) besides Go
generate-python:
	rm -rf gen/python
	$(TOOL) buf generate --template buf.gen.python.yaml

## test-python: run the Python example agent against the real server, over
## both tool protocols; needs Debian's python3-grpcio and python3-protobuf
test-python:
	examples/python/run.sh

## lint: gofmt, go vet and buf lint
lint:
	@unformatted="$$(gofmt -l $(GO_SOURCES))"; \
	if [ -n "$$unformatted" ]; then echo "gofmt needed on:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(TOOL) buf lint

## breaking: fail on wire-incompatible proto changes against the main branch
breaking:
	$(TOOL) buf breaking --against '.git#branch=main'

## bench: every benchmark, with allocations
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## loadbench: the sidecar over gRPC against an echo server of the same
## grpc-go, alternating phases (see bench/cmd/loadbench); pass flags with
## LOADBENCH_ARGS="-clients 1,64 -duration 5s"
LOADBENCH_ARGS ?=
loadbench:
	$(GO) run ./bench/cmd/loadbench $(LOADBENCH_ARGS)


## docker: build the container image (needs a Docker engine)
docker:
	docker build --build-arg VERSION=$(VERSION) -t $(IMAGE) .

## run: run the server in the foreground; pass flags with ARGS="--log-level debug"
run:
	$(GO) run ./cmd/ptc-sidecar serve $(ARGS)

clean:
	rm -rf bin
