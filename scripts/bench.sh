#!/usr/bin/env bash
# Benchmarks, written to bench/results.txt:
#  1. Go benchmarks of the state machine and the watcher (ratios side by side);
#  2. a fleet of N fake-hardware hosts applied and destroyed in one
#     configuration against a real Ironic: wall time and Ironic requests
#     (counted from Ironic's log).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$here"
hosts=${BENCH_HOSTS:-20}
command -v bc >/dev/null || { apt-get update -qq && apt-get install -y -qq bc >/dev/null; }
out=$here/bench/results.txt
{
  echo "# make bench, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(go version | cut -d' ' -f3)"
  echo
  echo "## Go benchmarks"
  go test -run '^$' -bench . -benchtime 3x ./internal/ironic/ ./internal/lifecycle/ 2>&1 | grep -E '^(Benchmark|ok|PASS)' || true
} >"$out.tmp"

export IRONIC_PORT=${IRONIC_PORT:-6391} IRONIC_RUN_DIR=$here/.tools/run-bench
"$here/scripts/ironic.sh" start
trap '"$here/scripts/ironic.sh" stop' EXIT
setup_terraform
work=$(mktemp -d)
cp bench/fleet/main.tf "$work/"
before=$(ironic_requests)
t0=$(date +%s.%N)
tf "$work" apply -auto-approve -input=false -parallelism="$hosts" -var hosts="$hosts" >"$work/apply.log"
t1=$(date +%s.%N)
mid=$(ironic_requests)
tf "$work" plan -detailed-exitcode -input=false -var hosts="$hosts" >"$work/plan.log"
mid2=$(ironic_requests)
tf "$work" destroy -auto-approve -input=false -parallelism="$hosts" -var hosts="$hosts" >"$work/destroy.log"
t2=$(date +%s.%N)
after=$(ironic_requests)
{
  echo
  echo "## Fleet: $hosts fake-hardware hosts in one configuration (terraform -parallelism=$hosts)"
  printf 'apply:   %6.1f s wall, %5d Ironic requests (%.1f per host)\n' "$(echo "$t1 - $t0" | bc)" $((mid - before)) "$(echo "($mid - $before) / $hosts" | bc -l)"
  printf 'plan:    %13s %5d Ironic requests (refresh; second plan empty)\n' "" $((mid2 - mid))
  printf 'destroy: %6.1f s wall, %5d Ironic requests (%.1f per host)\n' "$(echo "$t2 - $t1" | bc)" $((after - mid2)) "$(echo "($after - $mid2) / $hosts" | bc -l)"
} >>"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
