#!/usr/bin/env bash
# Test rig: a real Ironic from Debian's packages, on loopback, with its state
# in a temp dir. Idempotent.
#
#   scripts/ironic.sh install   install ironic-api + ironic-conductor if missing
#   scripts/ironic.sh start     install, configure, create the schema, start, wait
#   scripts/ironic.sh stop      stop it and remove its temp dir
#   scripts/ironic.sh env       print the environment the tests need
#   scripts/ironic.sh requests  count API requests in its log so far
#   scripts/ironic.sh seed-inventory NODE INVENTORY_JSON [PLUGIN_DATA_JSON]
#                               store an inspection inventory for a node (UUID
#                               or name) as inspection would, so that
#                               GET /v1/nodes/NODE/inventory returns it
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
  if ! command -v curl >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl >/dev/null
  fi
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

# seed_inventory NODE INVENTORY_JSON [PLUGIN_DATA_JSON]: Ironic 21.4 keeps
# inspection data in its database (table node_inventory, [inventory]
# data_backend = database); fake and redfish inspection store none, so tests
# seed one here. The inventory file holds the IPA inventory (the object with
# cpu, memory, interfaces, disks, ...), or {"inventory": ..., "plugin_data":
# ...} as the API returns it. Replaces any inventory the node had. The
# database is that of the Ironic serving IRONIC_PORT: this rig's when it
# does, else the running ironic process whose config has that port (tests
# only know BAREMETAL_ENDPOINT).
seed_inventory() {
  [ $# -ge 2 ] || { echo "usage: $0 seed-inventory NODE_UUID_OR_NAME INVENTORY_JSON_FILE [PLUGIN_DATA_JSON_FILE]" >&2; exit 2; }
  dirfile=""
  [ -f "$run/ironic.dir" ] && dirfile="$(cat "$run/ironic.dir")/ironic.conf"
  python3 - "$port" "$dirfile" "$@" <<'PY'
import configparser, datetime, glob, json, random, sqlite3, sys, time

port, conf, node, inv_file = sys.argv[1:5]
plugin_file = sys.argv[5] if len(sys.argv) > 5 else None


def read(path):
    cp = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        if not cp.read(path):
            return None
    except configparser.Error:
        return None
    return cp


def serves_port(cp):
    return cp is not None and cp.get("api", "port", fallback="6385") == port


# The Ironic on IRONIC_PORT: the rig's own when it listens there, else the
# running ironic process whose configuration does (tests only know the port).
cp = read(conf) if conf else None
if not serves_port(cp):
    cp = None
    for cmdline in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            args = open(cmdline, "rb").read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if not any(a.endswith("/ironic") or a == "ironic" for a in args[:2]) or "--config-file" not in args:
            continue
        i = args.index("--config-file")
        c = read(args[i + 1]) if i + 1 < len(args) else None
        if serves_port(c):
            cp = c
            break
if cp is None:
    sys.exit("seed-inventory: no Ironic of this rig serves port %s" % port)
url = cp.get("database", "connection")
if not url.startswith("sqlite:///"):
    sys.exit("seed-inventory: only an sqlite database is supported, not " + url)

with open(inv_file) as f:
    inventory = json.load(f)
plugin = {}
if isinstance(inventory, dict) and "inventory" in inventory and "cpu" not in inventory:
    plugin = inventory.get("plugin_data") or {}
    inventory = inventory["inventory"]
if plugin_file:
    with open(plugin_file) as f:
        plugin = json.load(f)
if not isinstance(inventory, dict) or not isinstance(plugin, dict):
    sys.exit("seed-inventory: the inventory and the plugin data must be JSON objects")

# Ironic writes this database from green threads whose transactions read
# first and then upgrade to a write lock; SQLite fails such an upgrade at
# once ("database is locked", no busy wait) while another connection holds a
# write lock, and Ironic then loses that update (e.g. a power action's
# result). So the seed never waits holding a lock: it takes the exclusive
# lock only when no transaction is open (busy timeout 0), retries after a
# short pause otherwise, and holds the lock for a few milliseconds.
db = sqlite3.connect(url[len("sqlite:///"):], timeout=0, isolation_level=None)
deadline = time.monotonic() + 60
while True:
    try:
        db.execute("BEGIN EXCLUSIVE")
        break
    except sqlite3.OperationalError as e:
        if "locked" not in str(e) and "busy" not in str(e):
            raise
        if time.monotonic() > deadline:
            sys.exit("seed-inventory: the database stayed busy for 60 s")
        time.sleep(random.uniform(0.005, 0.03))
try:
    rows = db.execute("SELECT id FROM nodes WHERE uuid = ? OR name = ?", (node, node)).fetchall()
    if len(rows) != 1:
        db.execute("ROLLBACK")
        sys.exit("seed-inventory: %d nodes have the UUID or name %s" % (len(rows), node))
    node_id = rows[0][0]
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
    db.execute("DELETE FROM node_inventory WHERE node_id = ?", (node_id,))
    db.execute(
        "INSERT INTO node_inventory (created_at, updated_at, version, inventory_data, plugin_data, node_id)"
        " VALUES (?, NULL, '1.0', ?, ?, ?)",
        (now, json.dumps(inventory), json.dumps(plugin), node_id))
    db.execute("COMMIT")
except BaseException:
    if db.in_transaction:
        db.execute("ROLLBACK")
    raise
print("seed-inventory: stored the inventory of node %s" % node)
PY
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  env) echo "BAREMETAL_ENDPOINT=http://127.0.0.1:$port" ;;
  requests) requests ;;
  log) echo "$(cat "$run/ironic.dir")/ironic.log" ;;
  seed-inventory) shift; seed_inventory "$@" ;;
  *) echo "usage: $0 install|start|stop|env|requests|log|seed-inventory" >&2; exit 2 ;;
esac
