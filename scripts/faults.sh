#!/usr/bin/env bash
# The fault suite (internal/faults): the provider run by the Terraform CLI
# against a real Ironic that is killed and restarted, split over two
# conductors one of which dies, made to lose a task, or given misbehaving
# BMCs. The faults kill the rig, so the suite starts one of its own on
# IRONIC_PORT and stops it: the split topology (ironic-api and two
# ironic-conductor processes with json-rpc on IRONIC_JSON_RPC_PORT, 8089,
# on MariaDB), which every fault test runs on. Run it when no other rig of
# yours serves IRONIC_PORT or uses the json-rpc port (scripts/test.sh runs
# it on port 6386, beside the acceptance tests' rig on 6385, which runs a
# single Ironic process without json-rpc). Writes the fault table to
# .tools/faults.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

tf=$(scripts/terraform.sh)
export IRONIC_PORT=${IRONIC_PORT:-6385}
# Its boot HTTP server on a free port: scripts/test.sh runs this suite
# beside the main rig, which has the default one.
IRONIC_HTTP_PORT=${FAULTS_IRONIC_HTTP_PORT:-$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
export IRONIC_HTTP_PORT
# Nothing of the main rig's (when scripts/test.sh runs this beside it).
unset BAREMETAL_INSPECTOR_URL BAREMETAL_TEST_IRONIC_LOG_DIR BAREMETAL_TEST_IRONIC_HTTP_URL
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
