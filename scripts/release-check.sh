#!/usr/bin/env bash
# Validates .goreleaser.yml with goreleaser v2 (installed into .tools/bin on
# first use: a 2.5-minute build on 2 cores, which is why make lint does not
# run it). A release runs `goreleaser release --clean` on a tag vX.Y.Z with
# GPG_FINGERPRINT set.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
version=v2.15.1
bin=$here/.tools/bin
if ! [ -x "$bin/goreleaser" ] || ! "$bin/goreleaser" --version 2>/dev/null | grep -q "${version#v}"; then
  echo "release-check: installing goreleaser $version into .tools/bin (a few minutes)" >&2
  GOBIN=$bin go install "github.com/goreleaser/goreleaser/v2@$version"
fi
"$bin/goreleaser" check
