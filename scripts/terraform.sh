#!/usr/bin/env bash
# Prints the path of a Terraform CLI for the scripts and tests.
#
#   scripts/terraform.sh        a Terraform 1.8 or later, in this order:
#     1. $TERRAFORM, when set (it must be 1.8 or later);
#     2. a `terraform` on PATH that is 1.8 or later (1.11+ also runs the
#        write-only attribute tests);
#     3. Terraform v1.8.5 in the tools cache outside the clone
#        ($BAREMETAL_TOOLS_CACHE, default ~/.cache/terraform-provider-baremetal/bin),
#        built with go install if missing (5-11 minutes on 2 cores, once a machine).
#   scripts/terraform.sh 1.14   a Terraform 1.14 or later (resource identity,
#                               list resources and `terraform query`, actions),
#                               in the same order: $TERRAFORM if it is 1.14+,
#                               else a `terraform` on PATH if it is 1.14+, else
#                               v1.14.9 in the same tools cache
#                               (bin/terraform-1.14.9/terraform), built from its
#                               Go module source if missing (see build_114).
#
# Messages go to stderr; only the path goes to stdout.
set -euo pipefail
want=${1:-1.8}
case "$want" in
  1.8) min_minor=8; version=1.8.5 ;;
  1.14) min_minor=14; version=1.14.9 ;;
  *) echo "terraform.sh: unknown argument '$want' (none, or 1.14)" >&2; exit 2 ;;
esac
bin=${BAREMETAL_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-baremetal}/bin

# tf_version BIN: prints "MAJOR.MINOR.PATCH" of a Terraform binary, or
# nothing (from the "Terraform vX.Y.Z" line, wherever warnings put it).
tf_version() {
  "$1" version 2>/dev/null | sed -n 's/^Terraform v\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' | sed -n 1p
}

# recent BIN: true when BIN is Terraform 1.$min_minor or later.
recent() {
  local v major minor
  v=$(tf_version "$1")
  [ -n "$v" ] || return 1
  major=${v%%.*}; minor=${v#*.}; minor=${minor%%.*}
  [ "$major" -gt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -ge "$min_minor" ]; }
}

# build_114 OUT: builds Terraform v$version into OUT from its Go module.
# `go install` cannot: since 1.13 its go.mod replaces nine remote-state
# backend modules (and internal/legacy) by directories the module zip does
# not carry. So take the module source, drop those nine backends from
# internal/backend/init/init.go and their replace and require lines from
# go.mod, and build. The binary keeps the local, remote, http, inmem and
# cloud backends, all the tests need. About 10 minutes on 2 cores, once a
# machine.
build_114() {
  local out=$1 dir src
  src=$(GOFLAGS=-mod=mod go mod download -json "github.com/hashicorp/terraform@v$version" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$src" ] || { echo "terraform.sh: go mod download gave no source for terraform v$version" >&2; exit 1; }
  dir=$(mktemp -d)
  trap "rm -rf '$dir'" EXIT
  cp -r "$src/." "$dir/"
  chmod -R u+w "$dir"
  sed -i -E '/backend(Azure|Consul|Cos|GCS|Kubernetes|OCI|OSS|Pg|S3)/d' "$dir/internal/backend/init/init.go"
  sed -i -E '/^[[:space:]]*(replace[[:space:]]+)?github\.com\/hashicorp\/terraform\/internal\/[^ ]+ => /d;
             /^[[:space:]]*github\.com\/hashicorp\/terraform\/internal\/[^ ]+ v0\.0\.0-00010101000000-000000000000/d' "$dir/go.mod"
  (cd "$dir" && GOFLAGS=-mod=mod go build -trimpath \
    -ldflags "-X github.com/hashicorp/terraform/version.dev=no" -o "$out.tmp" .) >&2
  mv "$out.tmp" "$out"
}

if [ -n "${TERRAFORM:-}" ]; then
  if recent "$TERRAFORM"; then echo "$TERRAFORM"; exit 0; fi
  if [ "$want" = 1.8 ]; then
    echo "terraform.sh: TERRAFORM=$TERRAFORM is not Terraform 1.$min_minor or later" >&2; exit 1
  fi
fi
if found=$(command -v terraform 2>/dev/null) && recent "$found"; then
  echo "$found"; exit 0
fi
# The 1.14 build lives in a directory of its own, named terraform like any
# Terraform, so that scripts can put it first on PATH (tfplugindocs runs the
# `terraform` it finds there).
name=terraform
[ "$want" = 1.8 ] || name=terraform-$version/terraform
if [ -x "$bin/$name" ] && [ "$(tf_version "$bin/$name")" = "$version" ]; then
  echo "$bin/$name"; exit 0
fi
mkdir -p "$(dirname "$bin/$name")"
if [ "$want" = 1.8 ]; then
  echo "terraform.sh: no Terraform 1.$min_minor+ on PATH; building v$version from source (5-11 minutes on 2 cores)" >&2
  GOBIN=$bin GOFLAGS=-mod=mod go install -ldflags "-X github.com/hashicorp/terraform/version.dev=no" \
    "github.com/hashicorp/terraform@v$version" >&2
else
  echo "terraform.sh: no Terraform 1.$min_minor+ as \$TERRAFORM or on PATH; building v$version from its Go module source into $bin (about 10 minutes on 2 cores, once a machine)" >&2
  build_114 "$bin/$name"
fi
"$bin/$name" version >&2
echo "$bin/$name"
