#!/usr/bin/env bash
# Test rig for Keystone authentication: a real Keystone (Debian's
# python3-keystone, fernet tokens, sqlite) and a second Ironic behind
# auth_strategy = keystone (keystonemiddleware), so a request without a
# valid token is refused for real. Idempotent.
#
#   scripts/keystone.sh install   install python3-keystone if missing
#   scripts/keystone.sh start     install, seed, start Keystone and its Ironic, wait
#   scripts/keystone.sh stop      stop both and remove their temp dirs
#   scripts/keystone.sh env       print the TEST_KEYSTONE_* settings the tests read
#   scripts/keystone.sh requests  count the keystone-auth Ironic's API requests
#
# Keystone's test server on sqlite is not written to while it serves: the
# whole catalog, the users and an application credential are seeded before
# it starts. The catalog:
#   RegionOne    identity (public), baremetal public and internal -> the
#                keystone-auth Ironic, on a port that is not Ironic's default
#   RegionTwo    identity only: a region without Ironic
#   RegionThree  baremetal internal only
# Users: admin (Default domain, keystone-manage bootstrap); ironic (service
# user of keystonemiddleware); operator in domain "infra", member of project
# "bm" in "infra" with the admin role (Ironic's legacy rules), plus an
# application credential of that user and project.
#
# Settings (all optional): KEYSTONE_PORT (Keystone) and KEYSTONE_IRONIC_PORT
# (the keystone-auth Ironic), by default free ports picked at start (several
# rigs run side by side on one machine); KEYSTONE_TOKEN_EXPIRATION (seconds a
# token lives; default 3600, make test uses a short one);
# KEYSTONE_IRONIC_FAKE_OPTS (the keystone-auth Ironic's [fake] delays, as
# IRONIC_FAKE_OPTS of ironic.sh; make test makes inspection outlive a
# token); IRONIC_RUN_DIR
# (pid/dir/port files; .tools/run under the project).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/scripts/debian.sh"
expiration=${KEYSTONE_TOKEN_EXPIRATION:-3600}
run=${IRONIC_RUN_DIR:-$here/.tools/run}
mkdir -p "$run"

free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The ports: as set, else those of the running rig, else free ones (start).
read -r port kironic_port 2>/dev/null <"$run/keystone.ports" || true
port=${KEYSTONE_PORT:-${port:-}}
kironic_port=${KEYSTONE_IRONIC_PORT:-${kironic_port:-}}
if [ "${1:-}" = start ]; then
  [ -n "$port" ] || port=$(free_port)
  [ -n "$kironic_port" ] || kironic_port=$(free_port)
  echo "$port $kironic_port" >"$run/keystone.ports"
fi

# Rig-only credentials (loopback, thrown away with the temp dir).
admin_password=rig-admin-pw
ironic_password=rig-ironic-pw
operator_password=rig-operator-pw
appcred_secret=rig-appcred-secret

log() { echo "keystone.sh: $*" >&2; }

install() {
  if /usr/bin/python3 -c 'import keystone.server.wsgi, keystonemiddleware.auth_token' 2>/dev/null; then
    return 0
  fi
  log "installing python3-keystone from Debian (a couple of minutes)"
  host_install python3-keystone python3-keystonemiddleware
}

keystone_up() {
  curl -fsS -m 2 "http://127.0.0.1:$port/v3" >/dev/null 2>&1
}

start_keystone() {
  if [ -f "$run/keystone.pid" ] && kill -0 "$(cat "$run/keystone.pid")" 2>/dev/null && keystone_up; then
    log "Keystone already running (pid $(cat "$run/keystone.pid")) on port $port"
    return 0
  fi
  dir=$(mktemp -d /tmp/baremetal-keystone.XXXXXX)
  echo "$dir" >"$run/keystone.dir"
  cat >"$dir/keystone.conf" <<CONF
[DEFAULT]
log_file = $dir/keystone.log
use_stderr = false
debug = false
[database]
connection = sqlite:///$dir/keystone.sqlite
[token]
provider = fernet
expiration = $expiration
[fernet_tokens]
key_repository = $dir/fernet-keys
[fernet_receipts]
key_repository = $dir/fernet-keys
[identity]
# Cheap hashes: the rig authenticates often.
password_hash_rounds = 4
[cache]
enabled = false
CONF
  # One Python process does what keystone-manage db_sync, fernet_setup and
  # bootstrap do (each keystone-manage run spends seconds importing), then
  # seeds the rest.
  OS_KEYSTONE_CONFIG_FILES="$dir/keystone.conf" /usr/bin/python3 - "$dir" "http://127.0.0.1:$port/v3" \
    "http://127.0.0.1:$kironic_port" "$admin_password" "$ironic_password" "$operator_password" "$appcred_secret" \
    >"$dir/seed.log" 2>&1 <<'PY' || { log "seeding failed:"; tail -n 20 "$dir/seed.log" >&2; return 1; }
import json, os, sys, uuid

import keystone.conf
from keystone.cmd import bootstrap
from keystone.common import fernet_utils, provider_api, sql
from keystone.common.sql import upgrades

d, keystone_url, ironic_url, admin_pw, ironic_pw, operator_pw, appcred_secret = sys.argv[1:8]
CONF = keystone.conf.CONF
keystone.conf.configure()
sql.initialize()
keystone.conf.set_default_for_default_log_levels()
CONF(args=[], project="keystone", default_config_files=[d + "/keystone.conf"])
keystone.conf.setup_logging()

upgrades.offline_sync_database_to_version()
fu = fernet_utils.FernetUtils(CONF.fernet_tokens.key_repository, CONF.fernet_tokens.max_active_keys, "fernet_tokens")
fu.create_key_directory(os.getuid(), os.getgid())
fu.initialize_key_repository(os.getuid(), os.getgid())

b = bootstrap.Bootstrapper()  # loads the backends
b.admin_password, b.admin_username, b.project_name, b.admin_role_name = admin_pw, "admin", "admin", "admin"
b.region_id, b.service_name, b.public_url = "RegionOne", "keystone", keystone_url
b.bootstrap()
P = provider_api.ProviderAPIs


def role(name):
    for r in P.role_api.list_roles():
        if r["name"] == name:
            return r
    rid = uuid.uuid4().hex
    return P.role_api.create_role(rid, {"id": rid, "name": name})


def project(name, domain_id):
    pid = uuid.uuid4().hex
    return P.resource_api.create_project(pid, {
        "id": pid, "name": name, "domain_id": domain_id, "enabled": True, "description": ""})


def user(name, domain_id, pw):
    return P.identity_api.create_user({"name": name, "domain_id": domain_id, "password": pw, "enabled": True})


for r in ("RegionTwo", "RegionThree"):
    P.catalog_api.create_region({"id": r, "description": ""})
sid = uuid.uuid4().hex
P.catalog_api.create_service(sid, {"id": sid, "type": "baremetal", "name": "ironic", "enabled": True})
for region, iface in (("RegionOne", "public"), ("RegionOne", "internal"), ("RegionThree", "internal")):
    eid = uuid.uuid4().hex
    P.catalog_api.create_endpoint(eid, {"id": eid, "service_id": sid, "interface": iface,
                                        "region_id": region, "url": ironic_url, "enabled": True})

# keystonemiddleware's service user: validates the tokens Ironic receives.
service = project("service", "default")
ironic = user("ironic", "default", ironic_pw)
P.assignment_api.add_role_to_user_and_project(ironic["id"], service["id"], role("service")["id"])

# The operator: a user and project in a domain other than Default, so that
# authentication needs the user and project domains.
did = uuid.uuid4().hex
P.resource_api.create_domain(did, {"id": did, "name": "infra", "enabled": True, "description": ""})
bm = project("bm", did)
op = user("operator", did, operator_pw)
# Ironic's legacy rules let a project's admin do everything (its
# baremetal_admin role is only honoured in projects named baremetal or demo
# of the Default domain).
bmadmin = role("admin")
P.assignment_api.add_role_to_user_and_project(op["id"], bm["id"], bmadmin["id"])
acid = uuid.uuid4().hex
P.application_credential_api.create_application_credential({
    "id": acid, "name": "terraform", "secret": appcred_secret, "user_id": op["id"],
    "project_id": bm["id"], "roles": [{"id": bmadmin["id"]}], "unrestricted": False,
    "description": "", "expires_at": None})
json.dump({"domain_id": did, "project_id": bm["id"], "user_id": op["id"], "appcred_id": acid},
          open(d + "/ids.json", "w"))
print("seeded")
PY
  # Keystone's WSGI app in a wsgiref server that answers one request at a
  # time; its access log is the request log. Not threaded: keystone's
  # SQLite backend shares connections across threads, and concurrent
  # requests (the provider authenticating while the keystone-auth Ironic
  # validates a token) failed with 500s ("SQLite objects created in a
  # thread can only be used in that same thread"). A request takes
  # milliseconds, so the queue stays short.
  OS_KEYSTONE_CONFIG_FILES="$dir/keystone.conf" KEYSTONE_RIG_PORT=$port setsid /usr/bin/python3 -c '
import os, wsgiref.simple_server as wss
from keystone.server.wsgi import initialize_public_application
class Server(wss.WSGIServer):
    request_queue_size = 64
app = initialize_public_application()
wss.make_server("127.0.0.1", int(os.environ["KEYSTONE_RIG_PORT"]), app, server_class=Server).serve_forever()
' >"$dir/access.log" 2>&1 </dev/null &
  echo $! >"$run/keystone.pid"
  log "started Keystone pid $(cat "$run/keystone.pid"), config and logs in $dir"
  for _ in $(seq 1 60); do
    if keystone_up; then
      log "Keystone is up on 127.0.0.1:$port"
      return 0
    fi
    if ! kill -0 "$(cat "$run/keystone.pid")" 2>/dev/null; then
      log "Keystone exited:"; tail -n 20 "$dir/access.log" "$dir/keystone.log" >&2 || true
      return 1
    fi
    sleep 0.5
  done
  log "timed out waiting for Keystone"; tail -n 20 "$dir/access.log" >&2 || true
  return 1
}

# The keystone-auth Ironic is the rig's ironic.sh with its Keystone option,
# on its own port and run dir.
kironic() {
  # Its boot HTTP server takes a free port, not the main rig's.
  IRONIC_PORT=$kironic_port IRONIC_RUN_DIR=$run/keystone-ironic IRONIC_FAKE_OPTS=${KEYSTONE_IRONIC_FAKE_OPTS:-} \
    IRONIC_HTTP_PORT=${KEYSTONE_IRONIC_HTTP_PORT:-$(free_port)} \
    IRONIC_KEYSTONE_URL=http://127.0.0.1:$port IRONIC_KEYSTONE_PASSWORD=$ironic_password \
    "$here/scripts/ironic.sh" "$@"
}

start() {
  install
  "$here/scripts/ironic.sh" install
  start_keystone
  kironic start
}

stop() {
  kironic stop || true
  if [ -f "$run/keystone.pid" ]; then
    pid=$(cat "$run/keystone.pid")
    kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 -- "-$pid" 2>/dev/null || true
    rm -f "$run/keystone.pid"
  fi
  if [ -f "$run/keystone.dir" ]; then
    [ -n "${KEEP_IRONIC_LOGS:-}" ] || rm -rf "$(cat "$run/keystone.dir")"
    rm -f "$run/keystone.dir"
  fi
  rm -f "$run/keystone.ports"
}

env_() {
  dir=$(cat "$run/keystone.dir")
  python3 - "$dir/ids.json" <<PY
import json, sys
ids = json.load(open(sys.argv[1]))
for k, v in [
    ("AUTH_URL", "http://127.0.0.1:$port/v3"),
    ("IRONIC_ENDPOINT", "http://127.0.0.1:$kironic_port"),
    ("IRONIC_LOG", "$(kironic log)"),
    ("ACCESS_LOG", "$dir/access.log"),
    ("TOKEN_EXPIRATION", "$(sed -n 's/^expiration = //p' "$dir/keystone.conf")"),
    ("USERNAME", "operator"), ("PASSWORD", "$operator_password"), ("USER_ID", ids["user_id"]),
    ("DOMAIN_NAME", "infra"), ("DOMAIN_ID", ids["domain_id"]),
    ("PROJECT_NAME", "bm"), ("PROJECT_ID", ids["project_id"]),
    ("APPCRED_ID", ids["appcred_id"]), ("APPCRED_SECRET", "$appcred_secret"),
    ("REGION", "RegionOne"), ("REGION_WITHOUT_IRONIC", "RegionTwo"), ("REGION_INTERNAL_ONLY", "RegionThree"),
]:
    print("TEST_KEYSTONE_%s=%s" % (k, v))
PY
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  env) env_ ;;
  requests) kironic requests ;;
  *) echo "usage: $0 install|start|stop|env|requests" >&2; exit 2 ;;
esac
