#!/usr/bin/env bash
# Static checks, run first by make test: go vet, gofmt, terraform fmt of the
# examples, and docs/ matching what tfplugindocs generates from the schemas.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
go vet ./...
bad=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$bad" ]; then echo "lint: gofmt would change:"; echo "$bad"; exit 1; fi
scripts/docs.sh >/dev/null
if ! git diff --quiet -- docs examples; then
  echo "lint: docs/ or examples/ are not what 'make docs' generates; run make docs and commit:"
  git diff --stat -- docs examples
  exit 1
fi
echo "lint: ok"
