#!/usr/bin/env bash
# Static checks, run first by make test: go vet, gofmt, terraform fmt of the
# examples, docs/ matching what tfplugindocs generates from the schemas, and
# terraform validate of examples/modules/*. goreleaser check is not run here
# (installing goreleaser is a 2.5-minute build on every clean machine, for a
# file that rarely changes): make release-check runs it.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
go vet ./...
bad=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$bad" ]; then echo "lint: gofmt would change:"; echo "$bad"; exit 1; fi
scripts/docs.sh >/dev/null
if ! git diff --quiet -- docs examples || [ -n "$(git ls-files --others --exclude-standard -- docs examples)" ]; then
  echo "lint: docs/ or examples/ are not what 'make docs' generates; run make docs and commit:"
  git diff --stat -- docs examples
  git ls-files --others --exclude-standard -- docs examples
  exit 1
fi
# The reusable modules validate against this build of the provider.
source scripts/lib.sh
setup_terraform
for m in examples/modules/*/; do
  tf "$m" validate -no-color >"$here/.tools/validate.out" 2>&1 || { echo "lint: terraform validate failed in $m:"; cat "$here/.tools/validate.out"; exit 1; }
done
echo "lint: ok"
