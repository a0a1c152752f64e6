#!/usr/bin/env bash
# Runs every test: unit tests, then acceptance tests with a real Ironic
# (installed from Debian's packages and started on loopback) and a Terraform
# CLI built from source. Everything it needs it installs itself.
#
#   scripts/test.sh            unit + acceptance
#   scripts/test.sh unit       unit tests only (acceptance tests skip)
#   scripts/test.sh acc        acceptance tests only
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
mode=${1:-all}

export TF_CLI_CONFIG_FILE="$here/.tools/terraformrc"
mkdir -p "$here/.tools"
: >"$TF_CLI_CONFIG_FILE"
# Parallelism is kept low: the machines have 2 cores, and a fake-hardware
# host keeps the single Ironic conductor busy for several seconds.
GO_TEST_FLAGS=${GO_TEST_FLAGS:-"-p 2 -parallel 4 -timeout 50m"}

# run_tests ARGS...: go test -v into a log; print package results, the
# output of failed tests, and one summary line; keep go test's exit code.
run_tests() {
  local log="$here/.tools/test.log" rc
  set +e
  go test $GO_TEST_FLAGS -v "$@" >"$log" 2>&1
  rc=$?
  set -e
  grep -E '^(ok|FAIL|panic:|\?|--- FAIL)' "$log" || true
  if [ "$rc" -ne 0 ]; then
    echo "== output of failed tests (full log: $log)"
    grep -E -B2 -A40 -- '--- FAIL' "$log" | head -400 || true
  fi
  echo "tests: $(grep -cE -- '--- PASS' "$log") passed, $(grep -cE -- '--- FAIL' "$log") failed, $(grep -cE -- '--- SKIP' "$log") skipped"
  return "$rc"
}

if [ "$mode" = unit ]; then
  run_tests ./...
  exit
fi

tf=$(scripts/terraform.sh)
scripts/lint.sh
scripts/ironic.sh start
trap 'KEEP_IRONIC_LOGS=${KEEP_IRONIC_LOGS:-} scripts/ironic.sh stop' EXIT
export TF_ACC=1 TF_ACC_TERRAFORM_PATH="$tf" BAREMETAL_ENDPOINT=http://127.0.0.1:${IRONIC_PORT:-6385}
unset TF_ACC_TERRAFORM_VERSION

rc=0
if [ "$mode" = acc ]; then
  run_tests -run 'Acc' ./... || rc=$?
else
  run_tests ./... || rc=$?
fi
echo "ironic requests served: $(scripts/ironic.sh requests)"
exit "$rc"
