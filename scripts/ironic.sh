#!/usr/bin/env bash
# Test rig: a real Ironic from Debian's packages, on loopback, with its state
# in a temp dir. Idempotent.
#
#   scripts/ironic.sh install   install ironic-api + ironic-conductor if missing
#   scripts/ironic.sh start     install, configure, create the schema, start, wait
#   scripts/ironic.sh stop      stop it and remove its temp dir
#   scripts/ironic.sh env       print the environment the tests need
#   scripts/ironic.sh requests  count API requests in its log so far
#
# Settings: IRONIC_PORT (6385), IRONIC_RUN_DIR (where pid/dir files are kept:
# .tools/run under the project). Extra [fake] delays: IRONIC_FAKE_OPTS, e.g.
# "power_delay = 1".
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
port=${IRONIC_PORT:-6385}
run=${IRONIC_RUN_DIR:-$here/.tools/run}
mkdir -p "$run"

log() { echo "ironic.sh: $*" >&2; }

install() {
  if command -v ironic >/dev/null && command -v ironic-dbsync >/dev/null; then
    return 0
  fi
  log "installing ironic-api and ironic-conductor from Debian (a few minutes)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends ironic-api ironic-conductor >/dev/null
}

is_up() {
  curl -fsS -m 2 "http://127.0.0.1:$port/v1/" >/dev/null 2>&1
}

start() {
  install
  if [ -f "$run/ironic.pid" ] && kill -0 "$(cat "$run/ironic.pid")" 2>/dev/null && is_up; then
    log "already running (pid $(cat "$run/ironic.pid")) on port $port"
    return 0
  fi
  dir=$(mktemp -d /tmp/baremetal-ironic.XXXXXX)
  echo "$dir" >"$run/ironic.dir"
  mkdir -p "$dir/httpboot" "$dir/tftpboot"
  cat >"$dir/ironic.conf" <<CONF
[DEFAULT]
auth_strategy = noauth
rpc_transport = none
host = localhost
log_file = $dir/ironic.log
use_stderr = false
debug = false
enabled_hardware_types = fake-hardware,redfish
enabled_bios_interfaces = fake,no-bios,redfish
enabled_boot_interfaces = fake,redfish-virtual-media
enabled_deploy_interfaces = fake,direct,ramdisk
enabled_inspect_interfaces = fake,no-inspect,redfish
enabled_management_interfaces = fake,redfish
enabled_power_interfaces = fake,redfish
enabled_raid_interfaces = fake,no-raid
enabled_vendor_interfaces = fake,no-vendor
enabled_network_interfaces = noop
[api]
host_ip = 127.0.0.1
port = $port
[database]
connection = sqlite:///$dir/ironic.sqlite
[dhcp]
dhcp_provider = none
[deploy]
http_root = $dir/httpboot
http_url = http://127.0.0.1:8088
[pxe]
tftp_root = $dir/tftpboot
[conductor]
sync_power_state_interval = 10
[redfish]
# Fail fast on BMCs that are not there (the default retries for minutes).
connection_attempts = 2
connection_retry_interval = 1
[fake]
${IRONIC_FAKE_OPTS:-}
CONF
  ironic-dbsync --config-file "$dir/ironic.conf" create_schema >"$dir/dbsync.log" 2>&1
  setsid ironic --config-file "$dir/ironic.conf" >"$dir/stdout.log" 2>&1 </dev/null &
  echo $! >"$run/ironic.pid"
  log "started pid $(cat "$run/ironic.pid"), config and logs in $dir"
  for _ in $(seq 1 120); do
    if is_up && curl -fsS -m 2 -H "X-OpenStack-Ironic-API-Version: 1.49" "http://127.0.0.1:$port/v1/conductors" 2>/dev/null | grep -q '"alive": *true'; then
      log "API and conductor are up on 127.0.0.1:$port"
      return 0
    fi
    if ! kill -0 "$(cat "$run/ironic.pid")" 2>/dev/null; then
      log "ironic exited; last log lines:"; tail -20 "$dir/ironic.log" "$dir/stdout.log" >&2 || true
      return 1
    fi
    sleep 1
  done
  log "timed out waiting for Ironic"; tail -20 "$dir/ironic.log" >&2 || true
  return 1
}

stop() {
  if [ -f "$run/ironic.pid" ]; then
    pid=$(cat "$run/ironic.pid")
    kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 -- "-$pid" 2>/dev/null || true
    rm -f "$run/ironic.pid"
  fi
  if [ -f "$run/ironic.dir" ]; then
    [ -n "${KEEP_IRONIC_LOGS:-}" ] || rm -rf "$(cat "$run/ironic.dir")"
    rm -f "$run/ironic.dir"
  fi
}

requests() {
  grep -c '" status: ' "$(cat "$run/ironic.dir")/ironic.log" || true
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  env) echo "BAREMETAL_ENDPOINT=http://127.0.0.1:$port" ;;
  requests) requests ;;
  log) echo "$(cat "$run/ironic.dir")/ironic.log" ;;
  *) echo "usage: $0 install|start|stop|env|requests|log" >&2; exit 2 ;;
esac
