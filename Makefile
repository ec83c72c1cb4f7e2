# vulnbench: `make demo` runs the baselines and a real scanner on the bundled suite;
# `make test` runs every test. Both install what they need.
GO      ?= go
BIN     := bin/vulnbench
DEMO    := suites/demo/demo.jsonl
DEMODB  := .demo/vulnbench.db
# Fuzz budgets are counts of executions, not durations: with a duration, Go 1.26's fuzz
# coordinator can report its own deadline as a failure ("context deadline exceeded", no crasher;
# golang/go#75804, fixed in Go 1.27). 60,000 runs take 5-9 s per target on 2 cores.
FUZZTIME ?= 60000x
# Each new input the fuzzer finds is minimised first, for up to a minute by default, and the
# executions of that time are not reported: with a budget of seconds, a target would spend it
# minimising one input. A few hundred tries are enough for an input this small.
FUZZMIN ?= 200x

# Go tools the tests and the demo use (gosec) are installed with go install into GOPATH/bin,
# which need not be on a fresh machine's PATH.
export PATH := $(shell $(GO) env GOPATH)/bin:$(PATH)

.PHONY: all build demo test deps check bench clean

all: build

# -buildvcs=true: the binary names its revision (scores and manifests carry it) even where
# GOFLAGS turns VCS stamping off. -s -w: no symbol table nor DWARF (a quarter of the file, read
# by debuggers only: panics still name functions and lines from the pc-line tables).
# bench/binsize.sh breaks the binary down by module. vulnbench-forward beside it is the
# sandbox's small gateway forwarder (internal/sandbox).
build:
	$(GO) build -buildvcs=true -ldflags='-s -w' -o $(BIN) ./cmd/vulnbench
	$(GO) build -ldflags='-s -w' -o $(dir $(BIN))vulnbench-forward ./cmd/vulnbench-forward

deps:
	./scripts/install-deps.sh

# The demo installs only what it runs (flawfinder, cppcheck, bubblewrap), not every subject's tools.
demo: build
	./scripts/install-deps.sh demo
	./scripts/demo.sh $(BIN) $(DEMO) $(DEMODB)

# Hygiene first (cheap), then every test; fuzz targets get a short budget each. internal/cli's
# tests (the real binary on txtar scripts, workers, browsers) take 5-7 minutes alone on 2 cores,
# over go test's 10-minute default when the machine is busy.
test: deps
	./scripts/check.sh
	$(GO) test -count=1 -timeout 30m ./...
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeCase$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMIN) ./internal/suite
	$(GO) test -run '^$$' -fuzz '^FuzzImport$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMIN) ./internal/suite/primevul
	$(GO) test -run '^$$' -fuzz '^FuzzReadPredictions$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMIN) ./internal/verdict
	$(GO) test -run '^$$' -fuzz '^FuzzIndexFile$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMIN) ./internal/codegraph/extract
	$(GO) test -run '^$$' -fuzz '^FuzzNormalise$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMIN) ./internal/textnorm
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMIN) ./internal/sarif
	$(GO) test -run '^$$' -fuzz '^FuzzTranslate$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMIN) ./internal/gateway/translate

bench: deps build
	./bench/run.sh

clean:
	rm -rf bin .demo
