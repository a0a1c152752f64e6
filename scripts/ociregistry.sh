#!/usr/bin/env bash
# The rig's private OCI registry (cmd/ociregistry): token authentication as
# real registries, one account (deployer, a random password), the demo's
# tiny qcow2 pushed as the OCI artifact Ironic 2025.1 deploys.
#
#   scripts/ociregistry.sh start   build and start it (OCIREGISTRY_PORT, 8470)
#   scripts/ociregistry.sh env     print OCIREGISTRY_URL, _USER and _PULL_SECRET_FILE
#   scripts/ociregistry.sh stop    stop it
#
# The password stays in a 0600 file under OCIREGISTRY_RUN_DIR; the
# acceptance tests start their own registry in-process instead.
# Ironic 2025.1 reaches registries over https only: with
# OCIREGISTRY_TLS_CERT and OCIREGISTRY_TLS_KEY (e.g. the rig's
# BAREMETAL_TEST_OCI_TLS_CERT/_KEY from scripts/ironic.sh env, which the
# rig's Ironic trusts) it serves https. Each authenticated pull is a line
# in $OCIREGISTRY_RUN_DIR/log.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
port=${OCIREGISTRY_PORT:-8470}
run=${OCIREGISTRY_RUN_DIR:-/tmp/baremetal-ociregistry}

case "${1:-}" in
start)
  mkdir -p "$run"
  chmod 700 "$run"
  if [ -f "$run/pid" ] && kill -0 "$(cat "$run/pid")" 2>/dev/null; then
    echo "ociregistry: already running (pid $(cat "$run/pid"))"
    exit 0
  fi
  go build -o "$run/ociregistry" "$here/cmd/ociregistry"
  (umask 077 && head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$run/password")
  printf 'deployer:%s' "$(cat "$run/password")" >"$run/pull-secret"
  chmod 600 "$run/pull-secret"
  tls=()
  if [ -n "${OCIREGISTRY_TLS_CERT:-}" ]; then tls=(-tls-cert "$OCIREGISTRY_TLS_CERT" -tls-key "${OCIREGISTRY_TLS_KEY:?with OCIREGISTRY_TLS_CERT}"); fi
  OCIREGISTRY_PASSWORD=$(cat "$run/password") "$run/ociregistry" -listen "127.0.0.1:$port" "${tls[@]}" \
    >"$run/url" 2>"$run/log" &
  echo $! >"$run/pid"
  for _ in $(seq 1 100); do [ -s "$run/url" ] && break; sleep 0.1; done
  [ -s "$run/url" ] || { echo "ociregistry: did not start:"; cat "$run/log"; exit 1; }
  echo "ociregistry: $(cut -d' ' -f1 "$run/url")"
  ;;
env)
  echo "OCIREGISTRY_URL=$(cut -d' ' -f1 "$run/url")"
  echo "OCIREGISTRY_USER=deployer"
  echo "OCIREGISTRY_PULL_SECRET_FILE=$run/pull-secret"
  ;;
stop)
  if [ -f "$run/pid" ]; then
    kill "$(cat "$run/pid")" 2>/dev/null || true
    rm -f "$run/pid"
  fi
  ;;
*)
  echo "usage: $0 start|env|stop" >&2
  exit 2
  ;;
esac
