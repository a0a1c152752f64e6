#!/usr/bin/env bash
# The main job on the local default: a real Ironic, simulated Redfish BMCs,
# and `terraform apply` of examples/demo (register and inspect hosts through
# their BMCs, claim two by label, render their network data from the
# inspected NICs, deploy an image with cloud-init), a second plan that must
# be empty, then destroy. Everything it needs it installs itself.
#
#   scripts/demo.sh        run the demo (make demo)
#   scripts/demo.sh down   tear down a demo kept with DEMO_KEEP=1
#
# While terraform runs, one line per host state change is printed from the
# provider's INFO log ("host state"); after the apply, a table of the hosts.
#
# DEMO_VM=1 runs examples/demo-vm instead: one host that is a qemu machine
# running the real Ironic Python Agent (bmcsim -vm-dir), on Ironic 2025.1
# with IRONIC_VM=1; it prints where the machine's serial console is, the
# agent's inventory, and the address the deployed OS configured
# (DEMO_AGENT_PORT, 41000: the loopback port of the agent's API).
#
# Settings: DEMO_KEEP=1 keeps the deployed hosts, the simulator and Ironic
# running after the demo and prints how to look at them and tear them down;
# DEMO_BMC_PORT (8000) is the simulator's port; DEMO_IMAGE_PORT (8450) the
# image server's; IRONIC_PORT (6385) Ironic's.
#
# The simulated systems run a simulated agent (bmcsim -ironic): cleaning,
# the firmware settings and the deploy go through it, and after the apply
# the demo checks that each worker's agent received, in its config drive,
# the network_data baremetal_network_data rendered and the user_data.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$here"
run=${IRONIC_RUN_DIR:-$here/.tools/run}
mkdir -p "$run"
kept=$run/demo.env
bmc_port=${DEMO_BMC_PORT:-8000}
image_port=${DEMO_IMAGE_PORT:-8450}

# serve_image DIR: makes a real (tiny) qcow2 image with qemu-img in DIR and
# serves DIR over HTTP on image_port; prints the server's pid.
serve_image() {
  local dir=$1
  qemu-img create -q -f qcow2 "$dir/demo.qcow2" 64M
  python3 -m http.server "$image_port" --bind 127.0.0.1 --directory "$dir" >"$dir/http.log" 2>&1 &
  echo $!
}

# check_config_drives DIR: each worker's agent record (the simulator's admin
# API) must hold the network_data Terraform rendered and the user_data.
check_config_drives() {
  python3 - <(tf "$1" output -json workers) "http://127.0.0.1:$bmc_port" <<'PY'
import json, sys, urllib.request
workers, sim = json.load(open(sys.argv[1])), sys.argv[2]
ok = True
for w in workers:
    system = "sys-" + w["name"].rsplit("-", 1)[1]
    rec = json.load(urllib.request.urlopen("%s/sim/systems/%s/agent" % (sim, system)))
    cd, img = rec.get("config_drive") or {}, rec.get("image") or {}
    want_nd, want_ud = json.loads(w["network_data"]), "#cloud-config\nhostname: %s\n" % w["name"]
    good = cd.get("network_data") == want_nd and cd.get("user_data") == want_ud and img.get("verdict") == "match"
    ok = ok and good
    print("  %s (%s): image %s %s %s; config drive network_data %s Terraform's, user_data %r" % (
        w["name"], system, img.get("url"), img.get("algorithm"), img.get("verdict"),
        "equals" if cd.get("network_data") == want_nd else "DIFFERS FROM", cd.get("user_data")))
    print("    network_data: %s" % json.dumps(cd.get("network_data"), sort_keys=True))
sys.exit(0 if ok else 1)
PY
}

# progress LOG STOPFILE START: prints the provider's "host state" lines
# from a Terraform log file as they are written (with their time since
# START, in epoch seconds), until STOPFILE exists and the log has been read
# to its end.
progress() {
  python3 -u - "$1" "$2" "$3" <<'PY'
import datetime, os, re, sys, time
path, stop, t0 = sys.argv[1], sys.argv[2], float(sys.argv[3])
field = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')
f, buf = None, ""
while True:
    chunk = f.readline() if f else ""
    if f is None and os.path.exists(path):
        f = open(path)
        continue
    if not chunk:
        if os.path.exists(stop):
            break
        time.sleep(0.2)
        continue
    buf += chunk
    if not buf.endswith("\n"):
        continue
    line, buf = buf, ""
    if ": host state:" not in line:
        continue
    kv = {k: v.strip('"') for k, v in field.findall(line.split(": host state:", 1)[1])}
    try:
        at = datetime.datetime.fromisoformat(line.split(" ", 1)[0].replace("Z", "+00:00")).timestamp() - t0
    except ValueError:
        at = time.time() - t0
    prev = kv.get("previous_state")
    took = " (%s in %s)" % (kv["elapsed"], prev) if prev and "elapsed" in kv else ""
    seen = " (observed on refresh)" if kv.get("observed") == "true" else ""
    print("  %6.1fs  %-10s %-30s%s%s" % (at, kv.get("host", "?"), (prev or "new") + " -> " + kv.get("state", "?"), took, seen))
PY
}

# tf_progress DIR NAME ARGS...: terraform ARGS in DIR with the provider's
# INFO log in DIR/NAME.log, printing host state changes as they happen and
# Terraform's own output only when it fails.
tf_progress() {
  local dir=$1 name=$2; shift 2
  local log=$dir/$name.log stop=$dir/$name.done rc=0 pid
  rm -f "$log" "$stop"
  progress "$log" "$stop" "$(date +%s.%N)" &
  pid=$!
  TF_LOG_PROVIDER=INFO TF_LOG_PATH=$log tf "$dir" "$@" -no-color >"$dir/$name.out" 2>&1 || rc=$?
  touch "$stop"
  wait "$pid" || true
  if [ "$rc" -ne 0 ]; then
    echo "== terraform $1 failed (exit $rc):"; cat "$dir/$name.out"
    echo "== provider log: $log"
  else
    grep -E '^(Apply complete|Destroy complete|No changes)' "$dir/$name.out" || true
  fi
  return "$rc"
}

# table DIR: the demo's hosts, their states and MACs as the provider reads
# them now (the baremetal_hosts data source), and the provider ids of the
# deployments.
table() {
  local dir=$1 st=$1/status
  mkdir -p "$st"
  cat >"$st/main.tf" <<'TF'
terraform {
  required_providers {
    baremetal = { source = "baremetal-tf/baremetal" }
  }
}
provider "baremetal" {}
data "baremetal_hosts" "all" {}
output "hosts" { value = data.baremetal_hosts.all.hosts }
TF
  tf "$st" apply -auto-approve -input=false >"$st/apply.out" 2>&1 || { cat "$st/apply.out"; return 1; }
  python3 - <(tf "$st" output -json hosts) <(tf "$dir" output -json workers) <(tf "$dir" output -json pool) <<'PY'
import json, sys
pool = {h["id"] for h in json.load(open(sys.argv[3]))}
hosts = [h for h in json.load(open(sys.argv[1])) if h["id"] in pool]
ids = {w["name"]: w["provider_id"] for w in json.load(open(sys.argv[2]))}
rows = [("HOST", "STATE", "IRONIC STATE", "BOOT MAC", "PROVIDER ID")]
for h in hosts:
    nics = (h.get("hardware") or {}).get("nics") or []
    mac = next((n["mac"] for n in nics if n.get("pxe")), nics[0]["mac"] if nics else "")
    rows.append((h["name"], h["provisioning_state"], h["ironic_state"], mac, ids.get(h["name"], "-")))
w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
for r in rows:
    print("  " + "  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip())
PY
}

down() {
  [ -f "$kept" ] || { echo "demo.sh: no kept demo (no $kept)"; return 0; }
  # shellcheck disable=SC1090
  source "$kept"
  setup_terraform
  echo "== terraform destroy"
  tf_progress "$work" destroy destroy -auto-approve -input=false
  kill "$sim" "${images:-}" 2>/dev/null || true
  "$here/scripts/ironic.sh" stop
  rm -f "$kept"
  echo "== kept demo torn down"
}

# demo_vm: DEMO_VM=1, examples/demo-vm on one qemu machine running the
# real agent (bmcsim -vm-dir), on a rig with IRONIC_VM=1 (Ironic 2025.1).
demo_vm() {
  local t_start vmdir files agent_port=${DEMO_AGENT_PORT:-41000} work start line console
  t_start=$(date +%s)
  export IRONIC_RELEASE=2025.1 IRONIC_VM=1
  vm_tools
  echo "== the agent's ramdisk and the OS image (built once a machine, then cached)"
  local ipa os
  ipa=$("$here/scripts/ipa.sh" build)
  os=$("$here/scripts/osimage.sh" build)
  "$here/scripts/ironic.sh" start
  setup_terraform
  go build -o "$here/.tools/bin/bmcsim" ./cmd/bmcsim
  vmdir=$(mktemp -d /tmp/baremetal-demo-vm.XXXXXX)
  files=$vmdir/files
  mkdir -p "$files"
  ln -s "$ipa/ipa.kernel" "$ipa/ipa.initramfs" "$os/os.qcow2" "$files/"
  "$here/.tools/bin/bmcsim" -listen "127.0.0.1:$bmc_port" -systems 1 -vm-dir "$vmdir" \
    -vm-forward "${IRONIC_PORT:-6385},$(cat "$run/ironic.httpport"),$image_port" -vm-agent-port-base "$agent_port" >"$here/.tools/bmcsim.log" 2>&1 &
  sim=$!
  python3 -m http.server "$image_port" --bind 127.0.0.1 --directory "$files" >"$vmdir/http.log" 2>&1 &
  images=$!
  trap 'kill "$sim" "$images" 2>/dev/null || true; "$here/scripts/ironic.sh" stop' EXIT
  for _ in $(seq 1 50); do curl -fsS -m 1 "http://127.0.0.1:$bmc_port/redfish/v1/" >/dev/null 2>&1 && break; sleep 0.2; done
  console=$vmdir/sys-0/console.log
  work=$(mktemp -d /tmp/baremetal-demo.XXXXXX)
  cp examples/demo-vm/*.tf "$work/"
  cat >"$work/terraform.tfvars" <<TFVARS
bmc_address    = "redfish-virtualmedia+http://127.0.0.1:$bmc_port/redfish/v1/Systems/sys-0"
deploy_kernel  = "http://127.0.0.1:$image_port/ipa.kernel"
deploy_ramdisk = "http://127.0.0.1:$image_port/ipa.initramfs"
kernel_params  = "%default% console=ttyS0,115200 ipa-advertise-host=127.0.0.1 ipa-advertise-port=$agent_port"
image_url      = "http://baremetal-rig:$image_port/os.qcow2"
image_sha256   = "$(cat "$os/os.qcow2.sha256")"
TFVARS
  echo "== the machine's serial console: $console  (tail -f it to watch the agent and the OS boot)"
  echo "== terraform apply (ready after $(( $(date +%s) - t_start )) s; host state changes from the provider's log):"
  start=$(date +%s)
  tf_progress "$work" apply apply -auto-approve -input=false
  echo "== apply took $(( $(date +%s) - start )) s"
  tf "$work" output -json inventory
  echo
  echo "== waiting for the deployed OS to print its addresses on the console"
  line=
  for _ in $(seq 1 300); do
    line=$(grep -a -m1 -o 'baremetal-os: .*' "$console" 2>/dev/null | tr -d '\r') && [ -n "$line" ] && break
    sleep 2
  done
  [ -n "$line" ] || { echo "the deployed OS printed no addresses in 10 minutes; the console's end:"; tail -40 "$console"; exit 1; }
  echo "  $line   (claimed: $(tf "$work" output -raw address))"
  echo "== second plan (must be empty)"
  tf "$work" plan -detailed-exitcode -input=false -no-color >"$work/plan.out" 2>&1 || { cat "$work/plan.out"; exit 1; }
  grep -E '^No changes' "$work/plan.out"
  echo "== terraform destroy"
  tf_progress "$work" destroy destroy -auto-approve -input=false
  echo "== demo done in $(( $(date +%s) - t_start )) s; Ironic served $(ironic_requests) requests; console: $console"
}

if [ "${1:-}" = down ]; then
  down
  exit
fi
if [ -n "${DEMO_VM:-}" ]; then
  demo_vm
  exit
fi
if [ -f "$kept" ]; then
  echo "demo.sh: a demo kept with DEMO_KEEP=1 is still running; tear it down first: scripts/demo.sh down" >&2
  exit 1
fi

t_start=$(date +%s)
"$here/scripts/ironic.sh" start
setup_terraform
go build -o "$here/.tools/bin/bmcsim" ./cmd/bmcsim
"$here/.tools/bin/bmcsim" -listen "127.0.0.1:$bmc_port" -systems 3 -ironic "$BAREMETAL_ENDPOINT" >"$here/.tools/bmcsim.log" 2>&1 &
sim=$!
imgdir=$(mktemp -d /tmp/baremetal-demo-images.XXXXXX)
images=$(serve_image "$imgdir")
cleanup() {
  if [ -z "${DEMO_KEEP:-}" ] || [ ! -f "$kept" ]; then
    kill "$sim" "$images" 2>/dev/null || true
    "$here/scripts/ironic.sh" stop
  fi
}
trap cleanup EXIT
for _ in $(seq 1 50); do curl -fsS -m 1 "http://127.0.0.1:$bmc_port/redfish/v1/" >/dev/null 2>&1 && break; sleep 0.2; done
echo "== simulated BMCs:"; curl -fsS "http://127.0.0.1:$bmc_port/sim/systems"; echo

work=$(mktemp -d /tmp/baremetal-demo.XXXXXX)
cp examples/demo/*.tf "$work/"
for _ in $(seq 1 50); do curl -fsS -m 1 -o /dev/null "http://127.0.0.1:$image_port/demo.qcow2" 2>/dev/null && break; sleep 0.2; done
cat >"$work/terraform.tfvars" <<TFVARS
bmc_base     = "redfish+http://127.0.0.1:$bmc_port"
image_url    = "http://127.0.0.1:$image_port/demo.qcow2"
image_sha256 = "$(sha256sum "$imgdir/demo.qcow2" | cut -d' ' -f1)"
TFVARS
echo "== terraform apply (ready after $(( $(date +%s) - t_start )) s; host state changes from the provider's log):"
start=$(date +%s)
tf_progress "$work" apply apply -auto-approve -input=false
echo "== apply took $(( $(date +%s) - start )) s"
echo "== second plan (must be empty)"
tf "$work" plan -detailed-exitcode -input=false -no-color >"$work/plan.out" 2>&1 || { cat "$work/plan.out"; exit 1; }
grep -E '^No changes' "$work/plan.out"
echo "== hosts:"
table "$work"
echo "== what the workers' agents received (image, checksum verdict, config drive):"
check_config_drives "$work"
if [ -n "${DEMO_KEEP:-}" ]; then
  printf 'work=%q\nsim=%q\nimages=%q\nbmc_port=%q\n' "$work" "$sim" "$images" "$bmc_port" >"$kept"
  port=${IRONIC_PORT:-6385}
  cat <<EOF
== DEMO_KEEP=1: the hosts stay deployed; Ironic (port $port) and the simulator (pid $sim, port $bmc_port) keep running.
   Terraform:  export TF_CLI_CONFIG_FILE=$TF_CLI_CONFIG_FILE BAREMETAL_ENDPOINT=$BAREMETAL_ENDPOINT
               $TF -chdir=$work state list
               $TF -chdir=$work state show 'baremetal_deployment.worker[0]'
   Simulator:  curl -s http://127.0.0.1:$bmc_port/sim/systems      (admin API: power, boot, virtual media per system)
               curl -s http://127.0.0.1:$bmc_port/sim/systems/sys-0/agent   (what sys-0's agent received)
   Ironic:     curl -s -H 'X-OpenStack-Ironic-API-Version: 1.82' 'http://127.0.0.1:$port/v1/nodes?fields=name,provision_state,power_state'
               Ironic's log: \$(scripts/ironic.sh log)
   Tear down:  IRONIC_PORT=$port scripts/demo.sh down   (terraform destroy, then stops the simulator and Ironic)
EOF
else
  echo "== terraform destroy"
  tf_progress "$work" destroy destroy -auto-approve -input=false
fi
echo "== demo done in $(( $(date +%s) - t_start )) s; Ironic served $(ironic_requests) requests"
