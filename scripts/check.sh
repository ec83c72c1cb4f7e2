#!/usr/bin/env bash
# Repository hygiene: gofmt, go vet and go mod tidy must leave nothing to change.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$bad" ]; then echo "gofmt would change: $bad" >&2; exit 1; fi
go vet ./...
if ! go mod tidy -diff >/dev/null 2>&1; then echo "go mod tidy would change go.mod/go.sum: run go mod tidy" >&2; go mod tidy -diff >&2 || true; exit 1; fi
echo "check: gofmt, go vet, go mod tidy clean"
