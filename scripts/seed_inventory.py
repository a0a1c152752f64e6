#!/usr/bin/env python3
"""Seeds an Ironic node's inspection inventory into the test rig's database.

Called by scripts/ironic.sh seed-inventory (which documents the arguments):
    seed_inventory.py PORT IRONIC_CONF NODE INVENTORY_JSON [PLUGIN_DATA_JSON]
IRONIC_CONF is the rig's ironic.conf, or "" when the rig's Ironic is not the
one serving PORT.
"""
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
        names = ("ironic", "ironic-api", "ironic-conductor")
        if not any(a.rsplit("/", 1)[-1] in names for a in args[:2]) or "--config-file" not in args:
            continue
        i = args.index("--config-file")
        c = read(args[i + 1]) if i + 1 < len(args) else None
        if serves_port(c):
            cp = c
            break
if cp is None:
    sys.exit("seed-inventory: no Ironic of this rig serves port %s" % port)
url = cp.get("database", "connection")

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

def store(db, ph, now):
    """Replace the node's inventory; ph is the driver's placeholder."""
    q = lambda sql: sql.replace("?", ph)
    cur = db.cursor()
    cur.execute(q("SELECT id FROM nodes WHERE uuid = ? OR name = ?"), (node, node))
    rows = cur.fetchall()
    if len(rows) != 1:
        return "seed-inventory: %d nodes have the UUID or name %s" % (len(rows), node)
    node_id = rows[0][0]
    cur.execute(q("DELETE FROM node_inventory WHERE node_id = ?"), (node_id,))
    cur.execute(q(
        "INSERT INTO node_inventory (created_at, updated_at, version, inventory_data, plugin_data, node_id)"
        " VALUES (?, NULL, '1.0', ?, ?, ?)"),
        (now, json.dumps(inventory), json.dumps(plugin), node_id))
    return None


now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
if url.startswith("mysql+pymysql://"):
    # MariaDB: one ordinary transaction; InnoDB's row locks make the seed
    # and Ironic's own writes wait for each other instead of failing.
    import urllib.parse
    import pymysql
    u = urllib.parse.urlsplit(url)
    qs = dict(urllib.parse.parse_qsl(u.query))
    db = pymysql.connect(user=urllib.parse.unquote(u.username or ""),
                         password=urllib.parse.unquote(u.password or ""),
                         database=u.path.lstrip("/"), unix_socket=qs.get("unix_socket"),
                         host=u.hostname or "localhost", port=u.port or 3306, charset="utf8")
    try:
        err = store(db, "%s", now)
        if err:
            db.rollback()
            sys.exit(err)
        db.commit()
    finally:
        db.close()
    print("seed-inventory: stored the inventory of node %s" % node)
    sys.exit(0)
if not url.startswith("sqlite:///"):
    sys.exit("seed-inventory: only sqlite and MariaDB (mysql+pymysql) databases are supported, not " + url)

# Ironic writes an sqlite database from green threads whose transactions
# read first and then upgrade to a write lock; SQLite fails such an upgrade
# at once ("database is locked", no busy wait) while another connection
# holds a write lock, and Ironic then loses that update (e.g. a power
# action's result). So the seed never waits holding a lock: it takes the
# exclusive lock only when no transaction is open (busy timeout 0), retries
# after a short pause otherwise, and holds the lock for a few milliseconds.
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
    err = store(db, "?", now)
    if err:
        db.execute("ROLLBACK")
        sys.exit(err)
    db.execute("COMMIT")
except BaseException:
    if db.in_transaction:
        db.execute("ROLLBACK")
    raise
print("seed-inventory: stored the inventory of node %s" % node)
