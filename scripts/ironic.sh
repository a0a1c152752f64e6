#!/usr/bin/env bash
# Test rig: a real Ironic from Debian's packages, on loopback, with its state
# (database, configuration, logs) in a temp dir. Idempotent. Runs as root.
#
# Ironic 2025.1 (the default) comes from Debian 13: a debootstrap folder
# with its packages, built once per recipe into the tools cache outside the
# clone and kept there with a zstd tarball of it (folder_install), each
# Ironic process chrooted in it (in_root). Ironic 2023.1 is Debian 12's,
# installed on the host.
#
#   scripts/ironic.sh install   install Ironic, MariaDB and PyMySQL if missing
#   scripts/ironic.sh start     install, start the database, configure, create
#                               the schema, start Ironic, wait until it serves
#   scripts/ironic.sh stop      stop Ironic and its database, remove the temp dir
#   scripts/ironic.sh env       print the environment the tests need
#   scripts/ironic.sh requests  count API requests in its log so far
#   scripts/ironic.sh version   print the Ironic release, package version and
#                               API microversions (min-max) of the rig
#   scripts/ironic.sh log       print the path of the API's log
#   scripts/ironic.sh kill [PROC]   SIGKILL Ironic's processes (all of them, or
#                               one: ironic, api, conductor-1, conductor-2),
#                               leaving the database as it is (fault tests)
#   scripts/ironic.sh resume [PROC]  start whichever Ironic processes (or
#                               the one named) are not running, on the same
#                               database; wait until their conductors started
#   scripts/ironic.sh sql STATEMENT  run SQL on the rig's database
#   scripts/ironic.sh topology  print the running rig's topology (single, split)
#   scripts/ironic.sh seed-inventory NODE INVENTORY_JSON [PLUGIN_DATA_JSON]
#                               store an inspection inventory for a node (UUID
#                               or name) as inspection would, so that
#                               GET /v1/nodes/NODE/inventory returns it
#
# Settings (environment):
#   IRONIC_RELEASE       2025.1 (default: Debian 13's Ironic 29.0, API 1.96,
#                        in a folder), 2023.1 (Debian 12's 21.4, API 1.82,
#                        on the host; the only one with ironic-inspector) or
#                        newest (Debian unstable's, in a folder)
#   BAREMETAL_TOOLS_CACHE  where the folders and tarballs are kept
#                        (${XDG_CACHE_HOME:-~/.cache}/terraform-provider-baremetal)
#   IRONIC_PORT          API port (6385)
#   IRONIC_RUN_DIR       where pid/dir files are kept (.tools/run)
#   IRONIC_DB            mariadb (default: Debian's MariaDB with its data in
#                        the temp dir, on a unix socket, stopped with the rig)
#                        or sqlite
#   IRONIC_DB_PORT       also let MariaDB listen on 127.0.0.1:PORT (default:
#                        socket only)
#   IRONIC_TOPOLOGY      single (default: API and conductor in one `ironic`
#                        process) or split (ironic-api plus two
#                        ironic-conductor processes talking json-rpc, on the
#                        shared MariaDB; Ironic's hash ring spreads the nodes)
#   IRONIC_JSON_RPC_PORT the conductors' json-rpc port (8089); each conductor
#                        listens on its own loopback address
#   IRONIC_CONDUCTOR_ADDRS  those addresses, also the conductors' host names
#                        ("127.0.0.2 127.0.0.3")
#   IRONIC_FAKE_OPTS     extra [fake] delays, e.g. "power_delay = 1"
#   IRONIC_BACKDOOR_PORT oslo.service's eventlet backdoor on localhost, on
#                        PORT or the first free port of FIRST:LAST (a
#                        range lets every Ironic of a test run have one;
#                        a busy single port stops Ironic) (unset: none): a
#                        Python prompt inside the running Ironic, whose
#                        pgt() prints every greenthread's stack, for a
#                        conductor that stops working
#   IRONIC_POWER_SYNC_INTERVAL  seconds between the conductor's power-state
#                        syncs of every node (10, so that tests see a power
#                        change made behind Ironic's back soon; Ironic's
#                        default is 60, which scripts/bench.sh uses)
#   IRONIC_KEYSTONE_URL  Keystone's root URL: auth_strategy = keystone
#                        (keystonemiddleware) instead of noauth, with the
#                        service user "ironic" of project "service" (Default
#                        domain) whose password is IRONIC_KEYSTONE_PASSWORD;
#                        scripts/keystone.sh sets both
#   IRONIC_HTTP_PORT     the port of the rig's boot HTTP server (8088): it
#                        serves Ironic's http_root (iPXE scripts, per-MAC
#                        pxelinux.cfg/ configs, cached deploy kernels and
#                        ramdisks, virtual media ISOs) as [deploy] http_url;
#                        `env` then prints BAREMETAL_TEST_IRONIC_HTTP_URL
#   IRONIC_INSPECTOR     1: also install and start Debian's ironic-inspector
#                        (11.1) for agent inspection (inspect interface
#                        "inspector"), on 127.0.0.1:IRONIC_INSPECTOR_PORT
#                        (8451); `env` then prints BAREMETAL_INSPECTOR_URL.
#                        2023.1 only: later releases inspect by themselves
#                        (inspect interface "agent"), and `env` prints
#                        BAREMETAL_TEST_BUILTIN_INSPECTION=1
#   IRONIC_AUTO_DISCOVERY  1: Ironic enrolls a machine it does not know when
#                        its agent posts an inventory to /v1/continue_inspection
#                        ([auto_discovery] enabled; 2025.1 and newest only),
#                        with driver IRONIC_AUTO_DISCOVERY_DRIVER (fake-hardware)
#                        and inspect interface agent as the default (so that
#                        the new node can take the inventory), and an
#                        inspection rule that names it after its serial number
#                        and records its BMC address as
#                        driver_info.redfish_address (see discovery_rule);
#                        `env` then prints BAREMETAL_TEST_AUTO_DISCOVERY=1
#   IRONIC_VM            1: the rig of the end-to-end lane, whose hosts are
#                        qemu machines running the real agent (the
#                        simulator's VM backend; 2025.1 and newest only).
#                        The machines reach the host only through guest
#                        addresses forwarded to loopback ports (qemu user
#                        networking, restrict=on): every URL Ironic hands
#                        a machine is one (VM_GUEST_HOST, 10.0.2.100), the
#                        rest stay on 127.0.0.1 (see vm_conf). `env` then
#                        prints BAREMETAL_TEST_VM=1
#   IRONIC_AGENT_CALLBACK_TIMEOUT  seconds Ironic waits for an agent's
#                        heartbeat in clean wait / wait call-back before it
#                        fails the node (30: the simulated agent heartbeats
#                        every 3 to 6 s, so a silent one is seen within
#                        half a minute; see agent_conf)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/debian.sh
source "$here/scripts/debian.sh"
port=${IRONIC_PORT:-6385}
run=${IRONIC_RUN_DIR:-$here/.tools/run}
mkdir -p "$run"

log() { echo "ironic.sh: $*" >&2; }
# Debian's Python, where Ironic and PyMySQL live (not whatever python3 is
# first on PATH).
py=/usr/bin/python3

# ---------------------------------------------------------------------------
# The Ironic release: the running rig's, else IRONIC_RELEASE.
#   2025.1  Debian 13 (trixie)'s Ironic 29.0 in a folder (the default)
#   2023.1  Debian 12's Ironic 21.4, installed on the host (with
#           ironic-inspector for agent inspection)
#   newest  Debian unstable's Ironic, in a folder built the same way
release() { cat "$run/ironic.release" 2>/dev/null || echo "${IRONIC_RELEASE:-2025.1}"; }

suite() {
  case $(release) in
    2025.1) echo trixie ;;
    newest) echo sid ;;
    2023.1) echo host ;;
    *) log "IRONIC_RELEASE must be 2025.1, 2023.1 or newest, not $(release)"; return 1 ;;
  esac
}

in_folder() { [ "$(suite)" != host ]; }

# The folder's packages: Ironic (API and conductor in ironic-common), its
# MySQL driver, and the tools its drivers run (ipmitool for ipmi).
# Debian's ironic-api and ironic-conductor packages only add daemons'
# init scripts, tftpd, xinetd and systemd, which the rig does not use.
# isolinux and syslinux-common: the BIOS boot loader of the virtual media
# ISOs Ironic builds from a deploy kernel and ramdisk (IRONIC_VM).
folder_packages="ironic-common python3-pymysql ipmitool isolinux syslinux-common"
# Bump when the build steps change, so that caches rebuild.
folder_recipe_version=1

# folder_key: the cache key, a hash of the recipe (suite, packages, steps).
folder_key() {
  printf '%s\n' "$(suite)" "$folder_packages" "$folder_recipe_version" | sha256sum | cut -c1-12
}

# folder: the root folder of the release's Ironic, e.g.
# ~/.cache/terraform-provider-baremetal/ironic-trixie-0123456789ab.
folder() { echo "$(cache_dir)/ironic-$(suite)-$(folder_key)"; }

# in_root ROOT CMD...: run CMD chrooted in ROOT in a mount namespace of its
# own, with /proc, /dev and /tmp (where the rig's state dirs are, at the same
# paths as on the host) mounted; the mounts vanish with the process, nothing
# is left mounted on the host. The network is the host's (loopback). One
# process throughout (each step execs the next), so its pid is CMD's.
# (The script run by unshare, ROOT its first argument.)
# shellcheck disable=SC2016
in_root_sh='r=$1; shift
mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" && mount --rbind /tmp "$r/tmp" || exit 1
exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"'
in_root() {
  local root=$1; shift
  unshare --mount --propagation private /bin/sh -c "$in_root_sh" sh "$root" "$@"
}

# ironic_exec CMD...: run an Ironic command (ironic, ironic-api,
# ironic-conductor, ironic-dbsync) of the release: in its folder, or the
# host's.
ironic_exec() {
  if in_folder; then
    in_root "$(folder)" "$@"
  else
    "$@"
  fi
}

# folder_build DIR: debootstrap the suite into DIR and install the packages,
# with nothing started on the host.
folder_build() {
  local dir=$1 m suite sources valid=
  command -v debootstrap >/dev/null || host_install debootstrap
  m=$(mirror); suite=$(suite)
  log "building a Debian $suite folder for Ironic in $dir from $m (about 5 minutes)"
  mkdir -p "$dir"
  # Maintainer scripts must start nothing (ironic-api would listen on 6385
  # of the host's network), and dpkg's time is mostly fsync and
  # byte-compiling: debootstrap_root stops both the daemons and fsync; the
  # byte-compiling goes here (modules compile on first import).
  debootstrap_root "$dir" "$suite" "$m" "$dir.debootstrap.log" || return 1
  in_root "$dir" dpkg-divert --local --rename --add /usr/bin/py3compile >/dev/null
  printf '#!/bin/sh\nexit 0\n' >"$dir/usr/bin/py3compile"
  chmod 755 "$dir/usr/bin/py3compile"
  sources="deb $m $suite main"
  # The mirror's unstable Release file may be a stale snapshot: apt
  # refuses it as expired unless told not to check.
  [ "$suite" != sid ] || valid="-o Acquire::Check-Valid-Until=false"
  if [ "$suite" != sid ]; then
    sources="$sources
deb $m $suite-updates main
deb ${m%/debian}/debian-security $suite-security main"
  fi
  echo "$sources" >"$dir/etc/apt/sources.list"
  cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
  # shellcheck disable=SC2086
  in_root "$dir" sh -c "apt-get $valid -o DPkg::Lock::Timeout=1200 update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=1200 install -y -qq --no-install-recommends $folder_packages &&
    apt-get clean" >"$dir.apt.log" 2>&1 ||
    { log "apt-get in the folder failed:"; tail -20 "$dir.apt.log" >&2; return 1; }
  rm -rf "$dir"/var/lib/apt/lists/*
  # Debian's python3-sushy may leave out its standard_registries/ (see
  # sushy_registries).
  local d
  for d in "$dir"/usr/lib/python3/dist-packages/sushy; do
    [ -d "$d" ] && mkdir -p "$d/standard_registries"
  done
  log "installed $(folder_version_of "$dir")"
}

# folder_version_of DIR: the Ironic package version in a folder.
folder_version_of() {
  echo "ironic-common $(chroot "$1" dpkg-query -W -f '${Version}' ironic-common 2>/dev/null || echo '?')"
}

# folder_install: the release's folder, from the cache, else from its
# tarball, else built (and its tarball written). Concurrent rigs wait for
# one another's build (flock).
folder_install() {
  local root tarball cache
  root=$(folder); tarball=$root.tar.zst; cache=$(cache_dir)
  [ -x "$root/usr/bin/ironic" ] && { folder_fix "$root"; return; }
  mkdir -p "$cache"
  (
    flock 9
    [ -x "$root/usr/bin/ironic" ] && exit 0
    local tmp=$root.tmp.$$ began
    began=$(date +%s)
    rm -rf "$tmp"
    if [ -f "$tarball" ]; then
      log "restoring $root from $tarball"
      mkdir -p "$tmp"
      zstd -dc -T0 <"$tarball" | tar -C "$tmp" -xf - || { rm -rf "$tmp"; exit 1; }
    else
      command -v zstd >/dev/null || host_install zstd
      folder_build "$tmp" || { rm -rf "$tmp"; exit 1; }
      log "writing $tarball"
      tar -C "$tmp" -cf - . | zstd -q -3 -T0 -o "$tarball.tmp" && mv "$tarball.tmp" "$tarball"
    fi
    mv "$tmp" "$root"
    rm -f "$tmp".*.log
    log "Ironic folder ready in $(( $(date +%s) - began )) s: $root ($(du -sh "$root" | cut -f1), tarball $(du -sh "$tarball" | cut -f1))"
  ) 9>"$root.lock" || return
  folder_fix "$root"
}

# folder_fix ROOT: the fixes the rig applies to a folder's Ironic, each
# idempotently where its code is found: two upstream fixes that Ironic 39.0
# (Debian unstable) has, and one of 39.0 itself.
# - Debian 13's 29.0.5 (2025.1) sets a node's parent_node to the node
#   itself on every PATCH, by any client, and cannot clear it. Its database
#   layer then leaves such "child" nodes out of every list without
#   include_children, the conductor's own included: every periodic task
#   (power sync, the clean/deploy/inspect wait timeouts, failing the nodes a
#   dead conductor left behind) stops seeing every node that was ever
#   patched, which looks like a conductor that stopped working. The fix: a
#   PATCH sets parent_node only when it names another node. The provider
#   still works around the bug for users of the unfixed package
#   (internal/ironic/provisioner.go, tested on the fake Ironic).
# - 29.0.5 refuses the agent's lookup in "service wait" unless fast track
#   is on, so a service step that boots the agent (the Redfish BIOS
#   interface's apply_configuration) waits forever. The fix adds service
#   wait to the states that allow a lookup.
# - Debian unstable's 39.0 looks a node's driver up as a configuration
#   group to find a verify_ca setting (drivers/utils.py get_verify_ca), and
#   fails every Redfish interface of a node whose driver is no group, such
#   as the rig's fake-hardware nodes with Redfish power ("no such option
#   fake-hardware in group [DEFAULT]"). The fix treats such a driver as a
#   group without settings. A node of the redfish hardware type, as users
#   run them, does not meet it.
folder_fix() {
  local pkg=$1/usr/lib/python3/dist-packages/ironic
  [ -d "$pkg" ] || return 0
  (
    flock 9
    "$py" - "$pkg" <<'PY'
import os, sys
pkg = sys.argv[1]
fixes = [
    ("api/controllers/v1/node.py",
     "                rpc_node, patch, 'parent_node'):\n            corrected_values['parent_node'] = parent_node.uuid\n",
     "                rpc_node, patch, 'parent_node'):\n"
     "            if parent_node.uuid != rpc_node.uuid:  # baremetal rig: upstream fix\n"
     "                corrected_values['parent_node'] = parent_node.uuid\n"),
    ("common/states.py",
     "                          INSPECTING, INSPECTWAIT, RESCUING, RESCUEWAIT)\nLOOKUP_ALLOWED_STATES",
     "                          INSPECTING, INSPECTWAIT, RESCUING, RESCUEWAIT,\n"
     "                          SERVICEWAIT)  # baremetal rig: upstream fix\nLOOKUP_ALLOWED_STATES"),
    ("drivers/utils.py",
     "    if CONF.get(config_group, {}).get('verify_ca'):\n        verify_ca = CONF[config_group]['verify_ca']\n",
     "    try:  # baremetal rig: fix (a driver such as fake-hardware is no config group)\n"
     "        group = CONF[config_group]\n"
     "    except Exception:\n"
     "        group = {}\n"
     "    if group.get('verify_ca'):\n"
     "        verify_ca = group['verify_ca']\n"),
]
for rel, old, new in fixes:
    p = os.path.join(pkg, rel)
    if not os.path.exists(p):
        continue
    s = open(p).read()
    if old in s:
        open(p + ".tmp", "w").write(s.replace(old, new))
        os.replace(p + ".tmp", p)
        print("ironic.sh: applied the rig's fix to " + p, file=sys.stderr)
PY
  ) 9>"$1.lock"
}

install() {
  local want=()
  command -v curl >/dev/null || want+=(curl)
  # qemu-img makes the real (tiny) qcow2 images the simulated agent deploys.
  command -v qemu-img >/dev/null || want+=(qemu-utils)
  # iPXE's loaders (undionly.kpxe, ipxe.efi) for the ipxe and pxe boot
  # interfaces, ipmitool for the ipmi hardware type, and OpenIPMI's
  # ipmi_sim, the IPMI BMC the tests put in front of simulated systems
  # (internal/acctest/ipmisim.go).
  [ -f /usr/lib/ipxe/undionly.kpxe ] && [ -f /usr/lib/ipxe/ipxe.efi ] || want+=(ipxe)
  command -v ipmitool >/dev/null || want+=(ipmitool)
  command -v ipmi_sim >/dev/null || want+=(openipmi)
  command -v zstd >/dev/null || want+=(zstd)
  if ! in_folder; then
    [ "$(inspector)" = 1 ] && ! command -v ironic-inspector >/dev/null && want+=(ironic-inspector)
    command -v ironic >/dev/null && command -v ironic-dbsync >/dev/null || want+=(ironic-api ironic-conductor)
  fi
  # The database is the host's MariaDB (the folder's Ironic reaches its
  # socket under /tmp); PyMySQL on the host is for seed-inventory.
  if [ "${IRONIC_DB:-mariadb}" = mariadb ]; then
    command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || want+=(mariadb-server)
    "$py" -c 'import pymysql' 2>/dev/null || want+=(python3-pymysql)
  fi
  if [ ${#want[@]} -gt 0 ]; then
    log "installing ${want[*]} from Debian (a few minutes)"
    host_install "${want[@]}"
  fi
  if in_folder; then
    folder_install
  else
    sushy_registries
  fi
}

# inspector: 1 when the rig runs ironic-inspector (IRONIC_INSPECTOR=1, on
# 2023.1 only: later Ironic releases inspect by themselves).
inspector() {
  if [ "${IRONIC_INSPECTOR:-}" = 1 ] && ! in_folder; then echo 1; else echo 0; fi
}

# ironic_version: the installed Ironic package's version.
ironic_version() {
  if in_folder; then
    folder_version_of "$(folder)"
  else
    echo "ironic-common $(dpkg-query -W -f '${Version}' ironic-common 2>/dev/null || echo '?')"
  fi
}

# Debian's python3-sushy leaves out its standard_registries/ directory, and
# sushy then fails to list any registry, so Ironic's redfish BIOS interface
# never stores the BIOS attribute registry (attribute_type, allowable_values,
# ... in GET /bios?detail=True). An empty directory is enough: the BMC's own
# registries are still read.
sushy_registries() {
  local d
  d=$("$py" -c 'import os, sushy; print(os.path.dirname(sushy.__file__))' 2>/dev/null) || return 0
  [ -d "$d/standard_registries" ] || mkdir -p "$d/standard_registries"
}

# ---------------------------------------------------------------------------
# Processes: each runs in its own session (setsid) with its pid in
# $run/NAME.pid, so that kill/stop reach it and only it.

pidfile() { echo "$run/$1.pid"; }

running() {
  local f; f=$(pidfile "$1")
  [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null
}

# spawn NAME LOGFILE CMD...: start CMD in its own session.
spawn() {
  local name=$1 out=$2; shift 2
  setsid "$@" >>"$out" 2>&1 </dev/null &
  echo $! >"$(pidfile "$name")"
}

# spawn_ironic NAME LOGFILE CMD...: spawn an Ironic command of the release
# (see ironic_exec), in its own session; its pid is the command's.
spawn_ironic() {
  local name=$1 out=$2; shift 2
  if in_folder; then
    spawn "$name" "$out" unshare --mount --propagation private /bin/sh -c "$in_root_sh" sh "$(folder)" "$@"
  else
    spawn "$name" "$out" "$@"
  fi
}

# terminate NAME [SIGNAL]: signal NAME's session, wait for it to go.
terminate() {
  local f pid sig=${2:-TERM}
  f=$(pidfile "$1")
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  kill "-$sig" -- "-$pid" 2>/dev/null || kill "-$sig" "$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  kill -9 -- "-$pid" 2>/dev/null || true
  rm -f "$f"
}

# ---------------------------------------------------------------------------
# The database: MariaDB in the temp dir (default), or sqlite.

db_kind() { cat "$run/ironic.db" 2>/dev/null || echo "${IRONIC_DB:-mariadb}"; }

mariadb_start() {
  local dir=$1 me; me=$(id -un)
  mkdir -p "$dir/mysql"
  mariadb-install-db --no-defaults --datadir="$dir/mysql/data" --user="$me" \
    --auth-root-authentication-method=socket --skip-test-db >"$dir/mysql/install.log" 2>&1 ||
    { log "mariadb-install-db failed:"; tail -20 "$dir/mysql/install.log" >&2; return 1; }
  local net=(--skip-networking)
  [ -n "${IRONIC_DB_PORT:-}" ] && net=(--bind-address=127.0.0.1 --port="$IRONIC_DB_PORT")
  # Durability is traded for speed: the database lives as long as the rig.
  spawn mariadb "$dir/mysql/stdout.log" /usr/sbin/mariadbd --no-defaults --user="$me" \
    --datadir="$dir/mysql/data" --socket="$dir/mysql/mysql.sock" --pid-file="$dir/mysql/mariadb.pid" \
    --log-error="$dir/mysql/error.log" "${net[@]}" --skip-log-bin \
    --innodb-flush-log-at-trx-commit=2 --innodb-doublewrite=0 --innodb-buffer-pool-size=128M \
    --max-connections=500
  for _ in $(seq 1 120); do
    mariadb-admin --socket="$dir/mysql/mysql.sock" ping >/dev/null 2>&1 && break
    running mariadb || { log "mariadb exited:"; tail -20 "$dir/mysql/error.log" >&2; return 1; }
    sleep 0.25
  done
  mariadb --socket="$dir/mysql/mysql.sock" -e "
    CREATE DATABASE ironic CHARACTER SET utf8mb3;
    CREATE USER 'ironic'@'localhost' IDENTIFIED BY 'ironic';
    GRANT ALL ON ironic.* TO 'ironic'@'localhost';"
  log "MariaDB up on $dir/mysql/mysql.sock${IRONIC_DB_PORT:+ and 127.0.0.1:$IRONIC_DB_PORT}"
}

db_url() {
  local dir=$1
  case $(db_kind) in
    mariadb) echo "mysql+pymysql://ironic:ironic@localhost/ironic?unix_socket=$dir/mysql/mysql.sock&charset=utf8" ;;
    sqlite) echo "sqlite:///$dir/ironic.sqlite" ;;
    *) log "IRONIC_DB must be mariadb or sqlite, not $(db_kind)"; return 1 ;;
  esac
}

# sql STATEMENT: run SQL on the rig's database and print the rows.
sql() {
  [ $# -eq 1 ] || { echo "usage: $0 sql STATEMENT" >&2; exit 2; }
  local dir; dir=$(cat "$run/ironic.dir")
  case $(db_kind) in
    mariadb) mariadb --socket="$dir/mysql/mysql.sock" --batch --skip-column-names ironic -e "$1" ;;
    sqlite) "$py" -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
for row in db.execute(sys.argv[2]): print("\t".join("NULL" if v is None else str(v) for v in row))' \
      "$dir/ironic.sqlite" "$1" ;;
  esac
}

# ---------------------------------------------------------------------------
# Ironic

topology() { cat "$run/ironic.topology" 2>/dev/null || echo "${IRONIC_TOPOLOGY:-single}"; }

# procs: the Ironic processes of the topology.
procs() {
  case $(topology) in
    single) echo ironic ;;
    split) echo api conductor-1 conductor-2 ;;
  esac
}

conductor_addr() {
  local addrs; read -r -a addrs <<<"${IRONIC_CONDUCTOR_ADDRS:-127.0.0.2 127.0.0.3}"
  echo "${addrs[$(( $1 - 1 ))]}"
}

# keystone_conf: the [keystone_authtoken] section of IRONIC_KEYSTONE_URL.
keystone_conf() {
  [ -n "${IRONIC_KEYSTONE_URL:-}" ] || return 0
  cat <<CONF
[keystone_authtoken]
www_authenticate_uri = $IRONIC_KEYSTONE_URL/v3
auth_url = $IRONIC_KEYSTONE_URL/v3
interface = public
auth_type = password
username = ironic
password = ${IRONIC_KEYSTONE_PASSWORD:?IRONIC_KEYSTONE_PASSWORD goes with IRONIC_KEYSTONE_URL}
user_domain_name = Default
project_name = service
project_domain_name = Default
[oslo_policy]
# Ironic's legacy rules: the admin role of a project may do all.
enforce_scope = false
enforce_new_defaults = false
CONF
}

# split_conductor_opts: with two conductors, one that dies leaves the hash
# ring within about half a minute, and the other releases its nodes. (One
# conductor keeps Ironic's defaults: a heartbeat late under load must not
# take the only conductor out of the ring.)
split_conductor_opts() {
  [ "$(topology)" = split ] || return 0
  printf 'heartbeat_interval = 5\nheartbeat_timeout = 30\n'
}

# interfaces_conf: the hardware types and interfaces of the release.
# Ironic 2025.1 adds manual-management (whose power and management
# interfaces are agent and noop), HTTPS virtual media, the custom-agent
# deploy, built-in inspection (agent, see agent_conf) and firmware updates.
interfaces_conf() {
  if in_folder; then
    cat <<CONF
enabled_hardware_types = fake-hardware,redfish,ipmi,manual-management
enabled_bios_interfaces = fake,no-bios,redfish
enabled_boot_interfaces = fake,ipxe,pxe,redfish-virtual-media,redfish-https
enabled_deploy_interfaces = fake,direct,ramdisk,custom-agent
enabled_inspect_interfaces = fake,no-inspect,agent,redfish
enabled_firmware_interfaces = fake,redfish,no-firmware
enabled_management_interfaces = fake,redfish,ipmitool,noop
enabled_power_interfaces = fake,redfish,ipmitool,agent
CONF
  else
    cat <<CONF
enabled_hardware_types = fake-hardware,redfish,ipmi
enabled_bios_interfaces = fake,no-bios,redfish
enabled_boot_interfaces = fake,redfish-virtual-media,ipxe,pxe
enabled_deploy_interfaces = fake,direct,ramdisk
enabled_inspect_interfaces = fake,no-inspect,redfish
enabled_management_interfaces = fake,redfish,ipmitool
enabled_power_interfaces = fake,redfish,ipmitool
CONF
  fi
}

# ipxe_loaders DIR: the iPXE loaders' paths for [pxe] loader_file_paths.
# Debian 12's (the host's); a folder's Ironic sees the host's /tmp only, so
# they are copied into DIR for it.
ipxe_loaders() {
  local dir=$1 src=/usr/lib/ipxe
  if in_folder; then
    mkdir -p "$dir/ipxe"
    cp "$src/undionly.kpxe" "$src/ipxe.efi" "$dir/ipxe/"
    src=$dir/ipxe
  fi
  echo "undionly.kpxe:$src/undionly.kpxe,ipxe.efi:$src/ipxe.efi"
}

write_conf() {
  local dir=$1 rpc=none url auth=noauth
  url=$(db_url "$dir")
  [ -z "${IRONIC_KEYSTONE_URL:-}" ] || auth=keystone
  [ "$(topology)" = split ] && rpc=json-rpc
  mkdir -p "$dir/tmp" "$dir/master_iso_images" "$dir/master_images"
  cat >"$dir/ironic.conf" <<CONF
[DEFAULT]
# Ironic links its cached images (hard links) between its master caches and
# its temp files: all three on the rig's own file system (a folder's
# /var/lib/ironic and the host's /tmp are two, and the link fails with EXDEV).
tempdir = $dir/tmp
auth_strategy = $auth
rpc_transport = $rpc
host = localhost
use_stderr = false
debug = false
$(interfaces_conf)
enabled_raid_interfaces = fake,no-raid
enabled_vendor_interfaces = fake,no-vendor
enabled_network_interfaces = noop
# A conductor that died leaves the hash ring within seconds.
hash_ring_reset_interval = 5
# The API's greenthread pool: one per open client connection, idle
# keep-alive ones included (oslo.service's default is 100). A test process
# runs hundreds of provider instances, each keeping its connections alive
# while idle; at 100 the API stops accepting (connections wait in the
# listen queue, with Ironic idle) until some close.
wsgi_default_pool_size = 1000
$([ -z "${IRONIC_BACKDOOR_PORT:-}" ] || echo "backdoor_port = $IRONIC_BACKDOOR_PORT")
[api]
host_ip = 127.0.0.1
port = $port
[database]
connection = $url
[dhcp]
dhcp_provider = none
[deploy]
http_root = $dir/httpboot
http_url = $(http_url)
iso_master_path = $dir/master_iso_images
[pxe]
instance_master_path = $dir/master_images
# Network boot (boot interfaces ipxe and pxe): Ironic writes boot.ipxe and
# the per-MAC configs (pxelinux.cfg/) under http_root and tftp_root, caches
# deploy kernels and ramdisks there, and copies Debian's iPXE loaders in at
# start. The rig serves http_root over HTTP (httpboot_start); it runs no
# TFTP or DHCP server: the simulator's hosts chain iPXE's script from
# http_url themselves (internal/bmc/sim/agent/netboot.go).
tftp_root = $dir/tftpboot
tftp_master_path = $dir/tftpboot/master_images
loader_file_paths = $(ipxe_loaders "$dir")
ipxe_bootfile_name = undionly.kpxe
uefi_ipxe_bootfile_name = ipxe.efi
[conductor]
sync_power_state_interval = ${IRONIC_POWER_SYNC_INTERVAL:-10}
check_provision_state_interval = 10
$(split_conductor_opts)
# A BMC whose power never changes fails within seconds, not a minute.
power_state_change_timeout = 20
[json_rpc]
auth_strategy = noauth
port = ${IRONIC_JSON_RPC_PORT:-8089}
[redfish]
# Fail fast on BMCs that are not there (the default retries for minutes).
connection_attempts = 2
connection_retry_interval = 1
# firmware.update's task polling (2024.1+; the default is a minute), and
# (39.0+) its waits around reboots and BMC checks, minutes by default, for
# BMCs that reset after an update (the simulator's answer at once).
firmware_update_status_interval = 5
firmware_update_fail_interval = 5
firmware_update_reboot_delay = 5
firmware_update_bmc_version_check_interval = 2
firmware_update_validation_interval = 1
firmware_update_required_successes = 1
firmware_update_resource_validation_timeout = 30
[ipmi]
# ipmitool commands to one BMC at most a second apart (Ironic's default
# paces them 5 s apart for slow real BMCs; the rig's are OpenIPMI's
# ipmi_sim on loopback).
min_command_interval = 1
[fake]
${IRONIC_FAKE_OPTS:-}
$(keystone_conf)
CONF
  local i addr
  for i in 1 2; do
    addr=$(conductor_addr "$i")
    printf '[DEFAULT]\nhost = %s\n[json_rpc]\nhost_ip = %s\n' "$addr" "$addr" >"$dir/conductor-$i.conf"
  done
}

# agent_conf DIR: the settings agent-driven steps need (deploy "direct"
# and "custom-agent", raid "agent", cleaning with the simulated agent of
# internal/bmc/sim/agent), in a file of their own that every Ironic process
# reads after ironic.conf. Ironic tells the agent its own API through the
# service catalog (without an endpoint_override a direct deploy fails at
# once); heartbeats every 3 to 6 s; a callback timeout short enough that a
# test of a silent agent sees it.
agent_conf() {
  local dir=$1 t=${IRONIC_AGENT_CALLBACK_TIMEOUT:-30}
  mkdir -p "$dir/deploy-logs"
  cat >"$dir/agent.conf" <<CONF
[DEFAULT]
enabled_deploy_interfaces = fake,direct,ramdisk,custom-agent
enabled_raid_interfaces = fake,no-raid,agent
[service_catalog]
endpoint_override = http://127.0.0.1:$port
[api]
ramdisk_heartbeat_timeout = 10
[conductor]
deploy_callback_timeout = $t
clean_callback_timeout = $t
[deploy]
# Automated cleaning runs erase_devices_metadata only, as in Metal3.
erase_devices_priority = 0
[agent]
deploy_logs_local_path = $dir/deploy-logs
CONF
  if in_folder; then
    cat >>"$dir/agent.conf" <<CONF
[inspector]
# Built-in inspection (inspect interface agent): the simulated agents post
# their inventory to Ironic's /v1/continue_inspection. Hosts boot the
# agent themselves with the fake boot interface (unmanaged inspection).
require_managed_boot = false
# LLDP processing is off by default: parse the agent's LLDP TLVs into the
# ports' local_link_connection, as Metal3 does.
hooks = \$default_hooks,parse-lldp,local-link-connection,memory,boot-mode
# The callback URL a ramdisk booted by Ironic (ipxe, pxe, virtual media:
# managed inspection) gets as ipa-inspection-callback-url; Ironic refuses a
# loopback one, and with mdns the agent looks it up on its network (the
# simulated network announces this Ironic).
callback_endpoint_override = mdns
[DEFAULT]
# The simulated hosts report far less memory than a real ramdisk needs.
minimum_memory_warning_only = true
[agent]
# The simulated agents' callback URLs are http:// (2025.1 refuses them by
# default: "TLS is required by configuration").
require_tls = false
[conductor]
# Under the callback timeout (Ironic warns otherwise).
max_conductor_wait_step_seconds = 15
CONF
    if [ "${IRONIC_AUTO_DISCOVERY:-0}" = 1 ]; then
      : >"$dir/auto-discovery"
      cat >>"$dir/agent.conf" <<CONF
[auto_discovery]
# A machine whose agent posts an inventory that matches no node becomes a
# node in enroll, with this driver (Ironic's auto-discovery).
enabled = true
driver = ${IRONIC_AUTO_DISCOVERY_DRIVER:-fake-hardware}
[DEFAULT]
# The new node needs an inspect interface that takes the agent's inventory.
default_inspect_interface = agent
CONF
    fi
  elif [ "$(inspector)" = 1 ]; then
    cat >>"$dir/agent.conf" <<CONF
[DEFAULT]
enabled_inspect_interfaces = fake,no-inspect,redfish,inspector
[inspector]
auth_type = none
endpoint_override = $(inspector_url)
# The callback URL a ramdisk booted by Ironic (ipxe, pxe, virtual media:
# managed inspection) gets as ipa-inspection-callback-url. Ironic refuses a
# loopback one ("Loopback address 127.0.0.1 cannot be used as an
# introspection callback URL"); with mdns the agent looks the inspector up
# on its network, as IPA can (the simulated network announces this one).
callback_endpoint_override = mdns
status_check_period = 5
CONF
  fi
}

# vm_conf DIR: with IRONIC_VM=1, DIR/vm.conf, read last by every Ironic
# process: what a real agent in a qemu machine needs. The machine reaches
# the host only at VM_GUEST_HOST, whose ports qemu forwards to the same
# loopback ports, and the host reaches the agent's API on a loopback port
# forwarded to the machine's 9999 (advertised per node with
# ipa-advertise-host/-port in driver_info.kernel_append_params).
# - The agent gets the guest-side API (external_callback_url: the
#   ipa-api-url of virtual media boots) and inspection callback (the
#   service catalog's endpoint, as built-in inspection builds it).
# - The BMC (the simulator, on the host) fetches the ISO Ironic builds from
#   external_http_url, on loopback. The agent downloads instance images
#   itself, from the user's URL: a test serves them at
#   http://baremetal-rig:PORT/, a name the agent's ramdisk resolves to
#   VM_GUEST_HOST (scripts/ipa.sh) and the folder's Ironic, which checks the
#   URL first, to 127.0.0.1 (its /etc/hosts).
# - Virtual media ISOs boot with isolinux in BIOS mode (SeaBIOS).
# - Fast track keeps the agent up from inspection to cleaning and the
#   deployment; heartbeats every 18 to 36 s, and callback waits long enough
#   for a ramdisk that takes two to four minutes to boot under qemu's
#   software emulation.
vm_conf() {
  local dir=$1 guest=${VM_GUEST_HOST:-10.0.2.100}
  [ "${IRONIC_VM:-0}" = 1 ] || return 0
  in_folder || { log "IRONIC_VM=1 needs IRONIC_RELEASE 2025.1 or newest (built-in inspection)"; return 1; }
  local hosts
  hosts=$(folder)/etc/hosts
  grep -qw baremetal-rig "$hosts" 2>/dev/null || echo "127.0.0.1 baremetal-rig" >>"$hosts"
  cat >"$dir/vm.conf" <<CONF
[DEFAULT]
isolinux_bin = /usr/lib/ISOLINUX/isolinux.bin
# What a redfish-virtualmedia:// address picks besides (as Metal3's).
enabled_raid_interfaces = fake,no-raid,agent,redfish
enabled_vendor_interfaces = fake,no-vendor,redfish
[deploy]
http_url = http://$guest:$(http_port)
external_http_url = $(http_url)
external_callback_url = http://$guest:$port
fast_track = true
[service_catalog]
# Also the inspection callback of built-in inspection (ipa-inspection-callback-url).
endpoint_override = http://$guest:$port
[api]
ramdisk_heartbeat_timeout = 60
[conductor]
deploy_callback_timeout = ${IRONIC_AGENT_CALLBACK_TIMEOUT:-360}
clean_callback_timeout = ${IRONIC_AGENT_CALLBACK_TIMEOUT:-360}
max_conductor_wait_step_seconds = 30
CONF
}

# http_port: the running rig's boot HTTP port, else IRONIC_HTTP_PORT's.
http_port() { cat "$run/ironic.httpport" 2>/dev/null || echo "${IRONIC_HTTP_PORT:-8088}"; }
http_url() { echo "http://127.0.0.1:$(http_port)"; }

# httpboot_start DIR: serve DIR/httpboot (Ironic's http_root) on
# http_url, as a site's boot HTTP server would.
httpboot_start() {
  local dir=$1
  spawn httpboot "$dir/httpboot.log" "$py" -m http.server "$(http_port)" --bind 127.0.0.1 --directory "$dir/httpboot"
  for _ in $(seq 1 60); do
    curl -fsS -m 2 -o /dev/null "$(http_url)/boot.ipxe" 2>/dev/null && { log "boot HTTP server is up on $(http_url)"; return 0; }
    running httpboot || { log "boot HTTP server exited:"; tail -20 "$dir/httpboot.log" >&2; return 1; }
    sleep 0.25
  done
  log "timed out waiting for the boot HTTP server (no $(http_url)/boot.ipxe)"; return 1
}

# discovery_rule: on a rig with auto-discovery, the inspection rule (API
# 1.96) for the nodes Ironic enrolls from unknown machines' inventories
# (plugin_data auto_discovered): each is named after the machine's serial
# number (Terraform needs a name) and gets the BMC address the agent
# reported as driver_info.redfish_address, so that adopting it needs only
# credentials. Created through the API: Ironic 29.0.5 refuses every
# built-in rule file ("Additional properties are not allowed ('built_in',
# 'scope' were unexpected)").
discovery_rule() {
  [ -f "$1/auto-discovery" ] || return 0
  curl -fsS -m 10 -o /dev/null -X POST "http://127.0.0.1:$port/v1/inspection_rules" \
    -H 'Content-Type: application/json' -H 'X-OpenStack-Ironic-API-Version: 1.96' -d '{
      "description": "Discovered machines: name from the serial number, BMC address into driver_info",
      "phase": "main",
      "conditions": [{"op": "is-true", "args": {"value": "{plugin_data[auto_discovered]}"}}],
      "actions": [
        {"op": "set-attribute", "args": {"path": "name", "value": "{inventory[system_vendor][serial_number]}"}},
        {"op": "set-attribute", "args": {"path": "driver_info/redfish_address", "value": "https://{inventory[bmc_address]}"}}
      ]}' || { log "creating the auto-discovery inspection rule failed"; return 1; }
  log "auto-discovery on: unknown machines are enrolled (driver ${IRONIC_AUTO_DISCOVERY_DRIVER:-fake-hardware}) and named after their serial number"
}

inspector_url() { echo "http://127.0.0.1:${IRONIC_INSPECTOR_PORT:-8451}"; }

# inspector_start DIR: ironic-inspector (standalone: API and conductor in
# one process) with an sqlite database in DIR, driving this rig's Ironic
# without authentication. It keeps the processed introspection data, which
# Ironic copies into its inventory when inspection finishes; ports it
# already has (redfish pre-creates them) are kept.
inspector_start() {
  local dir=$1
  [ "$(inspector)" = 1 ] || return 0
  cat >"$dir/inspector.conf" <<CONF
[DEFAULT]
auth_strategy = noauth
listen_address = 127.0.0.1
listen_port = ${IRONIC_INSPECTOR_PORT:-8451}
standalone = true
# API and conductor in one process: RPC stays in it.
transport_url = fake://
use_stderr = false
introspection_delay = 0
[ironic]
auth_type = none
endpoint_override = http://127.0.0.1:$port
[database]
connection = sqlite:///$dir/inspector.sqlite
[processing]
store_data = database
add_ports = all
keep_ports = all
power_off = true
[pxe_filter]
driver = noop
CONF
  ironic-inspector-dbsync --config-file "$dir/inspector.conf" upgrade >"$dir/inspector-dbsync.log" 2>&1 ||
    { log "ironic-inspector-dbsync failed:"; tail -20 "$dir/inspector-dbsync.log" >&2; return 1; }
  spawn inspector "$dir/inspector.stdout.log" ironic-inspector --config-file "$dir/inspector.conf" --log-file "$dir/inspector.log"
  for _ in $(seq 1 120); do
    curl -fsS -m 2 "$(inspector_url)/v1" >/dev/null 2>&1 && { log "ironic-inspector is up on $(inspector_url)"; return 0; }
    running inspector || { log "ironic-inspector exited:"; tail -20 "$dir/inspector.log" "$dir/inspector.stdout.log" >&2; return 1; }
    sleep 0.5
  done
  log "timed out waiting for ironic-inspector"; return 1
}

# proc_log NAME: the log file of one Ironic process.
proc_log() { echo "$(cat "$run/ironic.dir")/$1.log"; }

# api_log: the log of the process that serves the API.
api_log() {
  case $(topology) in
    single) proc_log ironic ;;
    split) proc_log api ;;
  esac
}

started_count() {
  local n
  n=$(grep -c 'Successfully started conductor' "$1" 2>/dev/null) || true
  echo "${n:-0}"
}

# oci_tls DIR: a TLS certificate for 127.0.0.1 that Ironic trusts, for the
# tests' OCI registries. Ironic 2025.1's OCI client only speaks https to a
# registry (oci_registry.py _build_url), and verifies it with requests'
# default trust (OciImageService takes [DEFAULT] webserver_verify_ca as a
# strict boolean: a CA file there is refused), so the rig starts Ironic with
# REQUESTS_CA_BUNDLE = the host's CAs plus this certificate, and
# `scripts/ironic.sh env` hands the certificate and its key to the tests
# (BAREMETAL_TEST_OCI_TLS_CERT/_KEY), whose registries serve with it. The
# same for every release: 2023.1 never talks to a registry.
oci_tls() {
  local dir=$1
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
    -subj "/CN=baremetal rig OCI registry" -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
    -keyout "$dir/oci-registry.key" -out "$dir/oci-registry.crt" >/dev/null 2>&1 ||
    { log "openssl could not make the OCI registry's certificate"; return 1; }
  cat /etc/ssl/certs/ca-certificates.crt "$dir/oci-registry.crt" >"$dir/ca-bundle.pem" 2>/dev/null ||
    cp "$dir/oci-registry.crt" "$dir/ca-bundle.pem"
}

# start_proc NAME: start one Ironic process on the rig's config.
start_proc() {
  local name=$1 dir conf cmd
  dir=$(cat "$run/ironic.dir")
  conf=(--config-file "$dir/ironic.conf")
  [ -f "$dir/agent.conf" ] && conf+=(--config-file "$dir/agent.conf")
  [ -f "$dir/vm.conf" ] && conf+=(--config-file "$dir/vm.conf")
  case $name in
    ironic) cmd=(ironic) ;;
    api) cmd=(ironic-api) ;;
    conductor-*) cmd=(ironic-conductor); conf+=(--config-file "$dir/$name.conf") ;;
  esac
  # REQUESTS_CA_BUNDLE: see oci_tls.
  spawn_ironic "$name" "$dir/$name.stdout.log" env REQUESTS_CA_BUNDLE="$dir/ca-bundle.pem" "${cmd[@]}" "${conf[@]}" --log-file "$dir/$name.log"
  log "started $name (pid $(cat "$(pidfile "$name")"))"
}

# await NAME=COUNT...: wait until the API answers and each named conductor
# process has logged its start more than COUNT times.
await() {
  local dir; dir=$(cat "$run/ironic.dir")
  for _ in $(seq 1 240); do
    local ok=1 kv name
    curl -fsS -m 2 "http://127.0.0.1:$port/v1/" >/dev/null 2>&1 || ok=0
    for kv in "$@"; do
      name=${kv%%=*}
      running "$name" || { log "$name exited; last log lines:"; tail -n 20 "$dir/$name.log" "$dir/$name.stdout.log" >&2 || true; return 1; }
      [ "$(started_count "$dir/$name.log")" -gt "${kv#*=}" ] || ok=0
    done
    [ "$ok" = 1 ] && { log "Ironic $(release) is up on 127.0.0.1:$port ($(topology), $(db_kind))"; return 0; }
    sleep 0.5
  done
  log "timed out waiting for Ironic"; tail -n 20 "$dir"/*.log >&2 || true
  return 1
}

# launch NAME...: start Ironic processes that are not running and wait.
launch() {
  local dir name waits=()
  dir=$(cat "$run/ironic.dir")
  for name in "$@"; do
    running "$name" && continue
    [ "$name" = api ] || waits+=("$name=$(started_count "$dir/$name.log")")
    start_proc "$name"
  done
  # The API alone has no "started conductor" line: await checks it answers.
  await "${waits[@]}"
}

is_up() {
  curl -fsS -m 2 "http://127.0.0.1:$port/v1/" >/dev/null 2>&1
}

start() {
  # A rig of another release is stopped first.
  [ "$(release)" = "${IRONIC_RELEASE:-2025.1}" ] || stop
  install
  if [ -f "$run/ironic.dir" ]; then
    local all=1 name
    for name in $(procs); do running "$name" || all=0; done
    if [ "$all" = 1 ] && is_up; then
      log "already running on port $port (Ironic $(release), $(topology), $(db_kind))"
      return 0
    fi
    stop
  fi
  echo "${IRONIC_RELEASE:-2025.1}" >"$run/ironic.release"
  echo "${IRONIC_HTTP_PORT:-8088}" >"$run/ironic.httpport"
  echo "${IRONIC_DB:-mariadb}" >"$run/ironic.db"
  echo "${IRONIC_TOPOLOGY:-single}" >"$run/ironic.topology"
  case $(topology) in
    single) ;;
    split)
      # Ironic 2025.1 registers a conductor as HOST:PORT when the json-rpc
      # port is not 8089, but still reserves nodes as HOST: a dead
      # conductor's locks are then never released (seen with 29.0.5). Move
      # the conductors' addresses instead of the port.
      if in_folder && [ "${IRONIC_JSON_RPC_PORT:-8089}" != 8089 ]; then
        log "warning: IRONIC_JSON_RPC_PORT=$IRONIC_JSON_RPC_PORT on Ironic $(release): a killed conductor's nodes stay locked; keep 8089 and set IRONIC_CONDUCTOR_ADDRS to free loopback addresses"
      fi
      [ "$(db_kind)" = mariadb ] || { log "IRONIC_TOPOLOGY=split needs IRONIC_DB=mariadb"; rm -f "$run/ironic.db" "$run/ironic.topology"; return 1; } ;;
    *) log "IRONIC_TOPOLOGY must be single or split"; rm -f "$run/ironic.db" "$run/ironic.topology"; return 1 ;;
  esac
  local dir
  dir=$(mktemp -d /tmp/baremetal-ironic.XXXXXX)
  echo "$dir" >"$run/ironic.dir"
  mkdir -p "$dir/httpboot" "$dir/tftpboot"
  [ "$(db_kind)" = mariadb ] && mariadb_start "$dir"
  oci_tls "$dir"
  write_conf "$dir"
  agent_conf "$dir"
  vm_conf "$dir" || return 1
  ironic_exec ironic-dbsync --config-file "$dir/ironic.conf" create_schema >"$dir/dbsync.log" 2>&1 ||
    { log "ironic-dbsync failed:"; tail -20 "$dir/dbsync.log" >&2; return 1; }
  log "config and logs in $dir"
  # shellcheck disable=SC2046
  launch $(procs)
  # (After the conductor: it writes boot.ipxe at start.)
  httpboot_start "$dir"
  inspector_start "$dir"
  discovery_rule "$dir"
}

stop() {
  local name
  for name in ironic api conductor-1 conductor-2 inspector httpboot; do terminate "$name"; done
  terminate mariadb
  if [ -f "$run/ironic.dir" ]; then
    [ -n "${KEEP_IRONIC_LOGS:-}" ] || rm -rf "$(cat "$run/ironic.dir")"
    rm -f "$run/ironic.dir"
  fi
  rm -f "$run/ironic.db" "$run/ironic.topology" "$run/ironic.release" "$run/ironic.httpport"
}

# kill_procs [NAME]: SIGKILL Ironic (all its processes, or one), as a crash
# would; the database and the config stay.
kill_procs() {
  local name
  for name in ${1:-$(procs)}; do
    running "$name" || { log "$name is not running"; continue; }
    terminate "$name" KILL
    log "killed $name"
  done
}

requests() {
  grep -c '" status: ' "$(api_log)" || true
}

# version: the Ironic release, package version and API microversions of
# the rig (its API's GET / when it runs).
version() {
  local v
  v=$(curl -fsS -m 5 "http://127.0.0.1:$port/" 2>/dev/null |
    "$py" -c 'import json, sys; d = json.load(sys.stdin)["default_version"]; print("API %s-%s" % (d["min_version"], d["version"]))' 2>/dev/null) ||
    v="API not running"
  echo "Ironic $(release): $(ironic_version), $v"
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
  "$py" "$here/scripts/seed_inventory.py" "$port" "$dirfile" "$@"
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  env) echo "BAREMETAL_ENDPOINT=http://127.0.0.1:$port"
       # Tests read the provision state transitions from the logs here.
       echo "BAREMETAL_TEST_IRONIC_LOG_DIR=$(cat "$run/ironic.dir")"
       if running inspector; then echo "BAREMETAL_INSPECTOR_URL=$(inspector_url)"; fi
       # Ironic 2024.1 and later inspect by themselves (inspect interface
       # agent): the simulated agents post to Ironic.
       if in_folder; then echo "BAREMETAL_TEST_BUILTIN_INSPECTION=1"; fi
       # Ironic enrolls unknown machines (IRONIC_AUTO_DISCOVERY=1).
       if [ -f "$(cat "$run/ironic.dir")/auto-discovery" ]; then echo "BAREMETAL_TEST_AUTO_DISCOVERY=1"; fi
       # The end-to-end lane's rig (IRONIC_VM=1).
       if [ -f "$(cat "$run/ironic.dir")/vm.conf" ]; then
         echo "BAREMETAL_TEST_VM=1"
         echo "BAREMETAL_TEST_IRONIC_HTTP_PORT=$(http_port)"
       fi
       echo "BAREMETAL_TEST_IRONIC_RELEASE=$(release)"
       # The OCI registries of the tests serve TLS with this (oci_tls).
       echo "BAREMETAL_TEST_OCI_TLS_CERT=$(cat "$run/ironic.dir")/oci-registry.crt"
       echo "BAREMETAL_TEST_OCI_TLS_KEY=$(cat "$run/ironic.dir")/oci-registry.key"
       # Network boot tests chain iPXE from here.
       if running httpboot; then echo "BAREMETAL_TEST_IRONIC_HTTP_URL=$(http_url)"; fi ;;
  requests) requests ;;
  version) version ;;
  log) api_log ;;
  kill) kill_procs "${2:-}" ;;
  resume)
    # shellcheck disable=SC2046
    launch ${2:-$(procs)} ;;
  sql) shift; sql "$@" ;;
  topology) topology ;;
  seed-inventory) shift; seed_inventory "$@" ;;
  *) echo "usage: $0 install|start|stop|env|requests|version|log|kill|resume|sql|topology|seed-inventory" >&2; exit 2 ;;
esac
