#!/usr/bin/env bash
# Builds the Terraform CLI v1.8.5 from source into .tools/bin (ignored) if it
# is missing, and prints its path. Later versions do not build from the Go
# module proxy (they carry replace directives); see the README.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
version=1.8.5
bin=$here/.tools/bin
if [ -x "$bin/terraform" ] && "$bin/terraform" version 2>/dev/null | grep -q "v$version"; then
  echo "$bin/terraform"; exit 0
fi
mkdir -p "$bin"
echo "terraform.sh: building Terraform v$version from source (5-11 minutes on 2 cores)" >&2
GOBIN=$bin GOFLAGS=-mod=mod go install -ldflags "-X github.com/hashicorp/terraform/version.dev=no" \
  "github.com/hashicorp/terraform@v$version" >&2
"$bin/terraform" version >&2
echo "$bin/terraform"
