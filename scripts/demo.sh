#!/usr/bin/env bash
# The main job on the local default: a real Ironic, simulated Redfish BMCs,
# and `terraform apply` of examples/demo (register and inspect hosts through
# their BMCs, claim two by label, render their network data from the
# inspected NICs, deploy an image with cloud-init), a second plan that must
# be empty, then destroy. Everything it needs it installs itself.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$here"

"$here/scripts/ironic.sh" start
setup_terraform
go build -o "$here/.tools/bin/bmcsim" ./cmd/bmcsim
"$here/.tools/bin/bmcsim" -listen 127.0.0.1:8000 -systems 3 >"$here/.tools/bmcsim.log" 2>&1 &
sim=$!
cleanup() {
  kill "$sim" 2>/dev/null || true
  "$here/scripts/ironic.sh" stop
}
trap cleanup EXIT
for _ in $(seq 1 50); do curl -fsS -m 1 http://127.0.0.1:8000/redfish/v1/ >/dev/null 2>&1 && break; sleep 0.2; done
echo "== simulated BMCs:"; curl -fsS http://127.0.0.1:8000/sim/systems; echo

work=$(mktemp -d)
cp examples/demo/*.tf "$work/"
start=$(date +%s)
echo "== terraform apply"
tf "$work" apply -auto-approve -input=false
echo "== apply took $(( $(date +%s) - start )) s"
echo "== second plan (must be empty)"
tf "$work" plan -detailed-exitcode -input=false
echo "== what the simulator saw of sys-0:"
curl -fsS http://127.0.0.1:8000/sim/systems/sys-0 | head -c 600; echo
if [ -z "${DEMO_KEEP:-}" ]; then
  echo "== terraform destroy"
  tf "$work" destroy -auto-approve -input=false
fi
echo "== demo done; Ironic served $(ironic_requests) requests"
