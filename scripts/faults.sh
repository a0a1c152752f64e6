#!/usr/bin/env bash
# The fault suite (internal/faults): the provider run by the Terraform CLI
# against a real Ironic that is killed and restarted, split over two
# conductors one of which dies, made to lose a task, or given misbehaving
# BMCs. The faults kill the rig, so the suite starts one of its own on
# IRONIC_PORT and stops it: the split topology (ironic-api and two
# ironic-conductor processes with json-rpc on IRONIC_JSON_RPC_PORT, 8089,
# on MariaDB), which every fault test runs on. Run it when no other rig of
# yours serves IRONIC_PORT (scripts/test.sh runs it after the acceptance
# tests, once their rig is stopped). Writes the fault table to
# .tools/faults.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

tf=$(scripts/terraform.sh)
export IRONIC_PORT=${IRONIC_PORT:-6385}
export IRONIC_RUN_DIR=$here/.tools/run-faults
export IRONIC_DB=mariadb IRONIC_TOPOLOGY=split
export TF_ACC=1 TF_ACC_TERRAFORM_PATH="$tf" BAREMETAL_FAULTS=1 BAREMETAL_ENDPOINT=http://127.0.0.1:$IRONIC_PORT
unset TF_ACC_TERRAFORM_VERSION
trap 'KEEP_IRONIC_LOGS=${KEEP_IRONIC_LOGS:-} scripts/ironic.sh stop' EXIT
: >"$here/.tools/faults.txt" 2>/dev/null || { mkdir -p "$here/.tools"; : >"$here/.tools/faults.txt"; }

log=$here/.tools/faults.log
: >"$log"
rc=0
start=$(date +%s)
scripts/ironic.sh stop
IRONIC_TOPOLOGY=split scripts/ironic.sh start
# The tests that kill Ironic run one after the other, then the others
# side by side (t.Parallel).
go test -count=1 -p 1 -timeout 20m -v -run '^TestFault' ./internal/faults >>"$log" 2>&1 || rc=1
grep -E '^(=== RUN|--- (PASS|FAIL|SKIP)|ok|FAIL)' "$log" | grep -v '=== RUN' || true
if grep -q -- '--- SKIP' "$log"; then
  echo "faults: a fault test skipped; under make test-faults every one must run"; rc=1
fi
[ "$rc" = 0 ] || { echo "== output of failed fault tests (full log: $log)"; grep -E -B2 -A40 -- '--- FAIL' "$log" | head -300 || true; }
echo "== fault table (.tools/faults.txt), suite took $(( $(date +%s) - start )) s"
echo "| fault | what happened | how long | lost |"
echo "|---|---|---|---|"
cat "$here/.tools/faults.txt"
exit "$rc"
