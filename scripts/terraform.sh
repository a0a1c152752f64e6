#!/usr/bin/env bash
# Prints the path of a Terraform CLI for the scripts and tests, in this order:
#   1. $TERRAFORM, when set (it must be 1.8 or later);
#   2. a `terraform` on PATH that is 1.8 or later (1.11+ also runs the
#      write-only attribute tests);
#   3. Terraform v1.8.5 in the tools cache outside the clone
#      ($BAREMETAL_TOOLS_CACHE, default ~/.cache/terraform-provider-baremetal/bin),
#      built from source if missing (5-11 minutes on 2 cores, once a machine). Later versions do not build from the Go module
#      proxy (they carry replace directives); see the README.
# Messages go to stderr; only the path goes to stdout.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
min_minor=8
version=1.8.5
bin=${BAREMETAL_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-baremetal}/bin

# tf_version BIN: prints "MAJOR.MINOR.PATCH" of a Terraform binary, or
# nothing (from the "Terraform vX.Y.Z" line, wherever warnings put it).
tf_version() {
  "$1" version 2>/dev/null | sed -n 's/^Terraform v\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' | sed -n 1p
}

# recent BIN: true when BIN is Terraform 1.8 or later.
recent() {
  local v major minor
  v=$(tf_version "$1")
  [ -n "$v" ] || return 1
  major=${v%%.*}; minor=${v#*.}; minor=${minor%%.*}
  [ "$major" -gt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -ge "$min_minor" ]; }
}

if [ -n "${TERRAFORM:-}" ]; then
  recent "$TERRAFORM" || { echo "terraform.sh: TERRAFORM=$TERRAFORM is not Terraform 1.$min_minor or later" >&2; exit 1; }
  echo "$TERRAFORM"; exit 0
fi
if found=$(command -v terraform 2>/dev/null) && recent "$found"; then
  echo "$found"; exit 0
fi
if [ -x "$bin/terraform" ] && [ "$(tf_version "$bin/terraform")" = "$version" ]; then
  echo "$bin/terraform"; exit 0
fi
mkdir -p "$bin"
echo "terraform.sh: no Terraform 1.$min_minor+ on PATH; building v$version from source (5-11 minutes on 2 cores)" >&2
GOBIN=$bin GOFLAGS=-mod=mod go install -ldflags "-X github.com/hashicorp/terraform/version.dev=no" \
  "github.com/hashicorp/terraform@v$version" >&2
"$bin/terraform" version >&2
echo "$bin/terraform"
