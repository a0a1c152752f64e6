#!/usr/bin/env bash
# Static checks, run first by make test: go vet, gofmt, golangci-lint, terraform
# fmt of the examples, docs/ matching what tfplugindocs generates from the schemas, and
# terraform validate of examples/modules/*, examples/demo, examples/demo-vm and examples/list-resources/*. goreleaser check is not run here
# (installing goreleaser is a 2.5-minute build on every clean machine, for a
# file that rarely changes): make release-check runs it.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
go vet ./...
bad=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$bad" ]; then echo "lint: gofmt would change:"; echo "$bad"; exit 1; fi
# golangci-lint (.golangci.yml), pinned, installed once a machine into the
# tools cache outside the clone (a fresh clone, as CI's, does not build it
# again: 80 s on 2 cores).
golangci_version=2.15.0
bin=${BAREMETAL_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-baremetal}/bin
golangci=$bin/golangci-lint
if ! "$golangci" version 2>/dev/null | grep -q "version $golangci_version "; then
  echo "lint: installing golangci-lint v$golangci_version into $bin"
  GOBIN="$bin" go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v$golangci_version"
fi
"$golangci" run ./...
# docs/, examples/ and README's benchmark table must be what make docs
# generates. Lint only reads the tree: generate into a copy of it (tracked
# and new files) and compare.
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' |
  tar --null -T - -cf - | tar -xf - -C "$copy"
export TERRAFORM=$(scripts/terraform.sh)
mkdir -p "$copy/.tools"
(cd "$copy" && scripts/docs.sh >/dev/null)
stale=$(diff -ruN docs "$copy/docs"; diff -ruN examples "$copy/examples"; diff -u README.md "$copy/README.md") || true
if [ -n "$stale" ]; then
  echo "lint: docs/, examples/ or README.md are not what 'make docs' generates; run make docs and commit. Differences (- tree, + generated):"
  echo "$stale" | head -60
  exit 1
fi
# The reusable modules, the demo and the list-resource examples validate
# against this build of the provider, with the Terraform scripts/terraform.sh
# finds (1.11.4 on the development machines): one older than 1.14 ignores
# the .tfquery.hcl files, so this is the check that the examples still work
# where list resources and identities do not (the query files themselves
# are validated with Terraform 1.14 by TestAccQuery_examplesValidate).
source scripts/lib.sh
setup_terraform
for m in examples/modules/*/ examples/demo/ examples/demo-vm/ examples/list-resources/*/; do
  tf "$m" validate -no-color >"$here/.tools/validate.out" 2>&1 || { echo "lint: terraform validate failed in $m:"; cat "$here/.tools/validate.out"; exit 1; }
done
echo "lint: ok"
