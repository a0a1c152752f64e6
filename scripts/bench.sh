#!/usr/bin/env bash
# Benchmarks, written to bench/results.txt with the commit they measured.
#
# For N in BENCH_SIZES (20 100 500 2000), side by side against one Ironic
# (scripts/ironic.sh's default, 2025.1):
#   - the list-polling limit (bench/floor: a minimal API client driving N
#     fake-hardware nodes through the same states, one paged list every
#     0.2 s, at most 32 requests in flight and 20 nodes inspecting or
#     cleaning at once, as the provider's gate): apply (create, manage,
#     inspect, provide, power on) and destroy (power off, delete);
#   - this provider (bench/fleet): terraform apply -parallelism=N, a
#     refresh-only plan, a plan with one host's labels changed, terraform
#     destroy -parallelism=N;
#   - BENCH_COMPARE=<git rev> also runs the provider built from that rev
#     (before/after, side by side in the same run).
# Ironic requests are counted from Ironic's log. GNU time gives each
# step's CPU seconds and the provider processes' own (and their peak RSS,
# written at exit); Terraform core's CPU is the step's less the provider's.
# The most nodes inspecting, cleaning, deploying or deleting at once (to
# check the capacity gate, 20) is replayed from the provision-state
# changes each step added to Ironic's log (bench/gatepeak): nothing asks
# Ironic anything while a step is measured.
# Sizes up to BENCH_MEDIAN_MAX (500) run BENCH_RUNS (3) times, larger ones
# once; the table shows medians. The whole bench took 62 minutes on 2
# cores at 100, 500 (2 runs each) and 2,000 (2026-12-03). In the largest
# size's first run every provider process of the apply and the refresh
# writes whole-process CPU and heap profiles (BAREMETAL_PROFILE_DIR); the
# top lines of the busiest go into the results and the profiles to bench/.
#
# The gate lane (BENCH_GATE_SIZE, 500; 0 skips it): fake-hardware's
# inspection ends at once, so the capacity gate never fills; one more run
# of the limit and the provider at that size against Ironic restarted with
# [fake] inspect_delay = BENCH_GATE_DELAY (5 s) shows whether both keep 20
# nodes busy.
#
# At the largest size the provider also runs apply and destroy at
# -parallelism=BENCH_LOW_PARALLELISM (200; 0 skips it): its memory is
# mostly the RPCs Terraform keeps in flight.
#
# Settings: IRONIC_PORT, IRONIC_DB (sqlite), BENCH_SIZES, BENCH_RUNS, BENCH_MEDIAN_MAX,
# BENCH_COMPARE, BENCH_COMPARE_MAX (compare at sizes up to this, all by
# default), BENCH_FLOOR_MAX (run the floor at sizes up to this, all by
# default), BENCH_ROWS (report an earlier run's rows file with this one's;
# BENCH_ROWS_NOTE says where they came from), BENCH_GO_BENCH=0 (skip the Go benchmarks), BENCH_TF_LOG=DEBUG
# (the provider's log of every step in the work directory it prints).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$here"
sizes=${BENCH_SIZES:-20 100 500 2000}
runs=${BENCH_RUNS:-3}
median_max=${BENCH_MEDIAN_MAX:-500}
command -v bc >/dev/null || host_install bc
command -v python3 >/dev/null || host_install python3
[ -x /usr/bin/time ] || host_install time
out=$here/bench/results.txt
bench_start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# sqlite by default, as the issue's measurements: on MariaDB the same rig
# made the floor about 5 times slower (bench/results.txt says which ran).
# Ironic's own power-sync interval (60 s) rather than the test rig's 10 s:
# at 500 nodes a sync every 10 s took a large share of Ironic's one process
# from the floor and the provider alike.
export IRONIC_PORT=${IRONIC_PORT:-6391} IRONIC_RUN_DIR=$here/.tools/run-bench IRONIC_DB=${IRONIC_DB:-sqlite}
export IRONIC_POWER_SYNC_INTERVAL=${IRONIC_POWER_SYNC_INTERVAL:-60}
"$here/scripts/ironic.sh" start
work=$(mktemp -d)
echo "bench: work directory $work" >&2
trap 'cp "$("$here/scripts/ironic.sh" log)" "$work/ironic-api.log" 2>/dev/null || true; "$here/scripts/ironic.sh" stop; kill $(jobs -p) 2>/dev/null || true' EXIT
endpoint=http://127.0.0.1:$IRONIC_PORT
export BAREMETAL_ENDPOINT=$endpoint

# Terraform: the one on PATH (1.11 on the development image), else the
# source build of scripts/terraform.sh.
TF=$(command -v terraform || "$here/scripts/terraform.sh")

# provider_dir NAME REV: builds the provider (REV: a git revision, or
# "work" for the worktree) behind a wrapper that records the peak RSS of
# its processes, and prints the directory for dev_overrides.
provider_dir() {
  local name=$1 rev=$2 dir=$here/.tools/bench-provider/$1
  mkdir -p "$dir"
  if [ "$rev" = work ]; then
    go build -o "$dir/provider.bin" "$here"
  else
    local src=$work/src-$name
    mkdir -p "$src"
    git -C "$here" archive "$rev" | tar -x -C "$src"
    (cd "$src" && go build -o "$dir/provider.bin" .)
  fi
  # GNU time writes each provider process's peak RSS (kB) and CPU seconds
  # (user, system) when it exits: nothing samples /proc while the bench
  # measures.
  cat >"$dir/terraform-provider-baremetal" <<'SH'
#!/bin/sh
[ -n "${BENCH_RSS:-}" ] && exec /usr/bin/time -a -o "$BENCH_RSS" -f '%M %U %S' "$(dirname "$0")/provider.bin" "$@"
exec "$(dirname "$0")/provider.bin" "$@"
SH
  chmod +x "$dir/terraform-provider-baremetal"
  echo "$dir"
}

now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc; }

# One measured step: sets wall, reqs (every API request the step added to
# Ironic's log), peak (max gate-state nodes), from that part of the log
# alone, and, from GNU time: cpu (the command's CPU seconds, its children's
# included), pcpu and kb (the provider processes' CPU seconds and highest
# peak RSS, written by the wrapper of provider_dir) and core (cpu - pcpu:
# Terraform core's own). Until 2026-12-01 a sampler listed every node each
# second to watch the gate; at 500 nodes that list took about 0.1 s of
# Ironic's one process every second, during the floor's runs and the
# provider's alike.
measure() {
  local label=$1; shift
  local log l0 t0 t1 part=$work/$label.ironic
  log=$("$here/scripts/ironic.sh" log)
  load=$(cut -d' ' -f1 /proc/loadavg)
  export BENCH_RSS=$work/$label.provider
  : >"$BENCH_RSS"
  l0=$(wc -l <"$log"); t0=$(now)
  if [ -n "${BENCH_TF_LOG:-}" ]; then export TF_LOG_PROVIDER=$BENCH_TF_LOG TF_LOG_PATH=$work/$label.tflog; fi
  if ! /usr/bin/time -o "$work/$label.time" -f '%U %S' "$@" >"$work/$label.log" 2>&1; then
    echo "bench: $label failed; last lines:" >&2; tail -30 "$work/$label.log" >&2
    exit 1
  fi
  t1=$(now)
  tail -n +$((l0 + 1)) "$log" >"$part"
  wall=$(secs "$t0" "$t1"); reqs=$(grep -c '" status: ' "$part" || true)
  # The requests of this step, by method and path shape, for reading.
  grep '" status: ' "$part" |
    sed -E 's/.*"([A-Z]+) ([^ ?]*)[^ ]* HTTP[^"]*" status: ([0-9]+).*/\1 \2 \3/; s/[0-9a-f]{8}-[0-9a-f-]{27}/ID/g' |
    sort | uniq -c | sort -rn >"$work/$label.reqs" || true
  peak=$("$work/gatepeak" <"$part")
  cpu=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { c = $1 + $2 } END { printf "%.2f", c }' "$work/$label.time")
  # (GNU time may also have written "Command exited with non-zero status"
  # lines.)
  pcpu=$(awk 'NF == 3 && $1 ~ /^[0-9]+$/ { c += $2 + $3 } END { printf "%.2f", c }' "$BENCH_RSS")
  kb=$(awk 'NF == 3 && $1 ~ /^[0-9]+$/ && $1 > m { m = $1 } END { print m + 0 }' "$BENCH_RSS")
  core=$(echo "$cpu $pcpu" | awk '{ printf "%.2f", $1 - $2 }')
}

run_floor() { # N RUN
  local n=$1 i=$2
  go build -o "$work/floor" ./bench/floor
  measure "floor-apply-$n-$i" "$work/floor" -endpoint "$endpoint" -hosts "$n" -prefix "floor$i" apply
  echo "$n floor $i apply $wall $reqs $peak 0 $load $cpu 0" >>"$work/rows"
  measure "floor-destroy-$n-$i" "$work/floor" -endpoint "$endpoint" -hosts "$n" -prefix "floor$i" destroy
  echo "$n floor $i destroy $wall $reqs $peak 0 $load $cpu 0" >>"$work/rows"
}

run_provider() { # NAME N RUN
  local name=$1 n=$2 i=$3 dir=$work/tf-$1-$2-$3 row
  mkdir -p "$dir"
  sed "s/fleet-\${count.index}/$name$i-\${count.index}/" bench/fleet/main.tf >"$dir/main.tf"
  export TF_CLI_CONFIG_FILE=$work/$name.tfrc
  # At the largest size's first run, CPU and heap profiles of every
  # provider process of the apply and the refresh (BAREMETAL_PROFILE_DIR:
  # the whole process, written when Terraform stops it).
  local profile=""
  [ "$n" = "$largest" ] && [ "$i" = 1 ] && [ "$name" = this ] && profile=$work/profile-$n
  [ -z "$profile" ] || { mkdir -p "$profile/apply"; export BAREMETAL_PROFILE_DIR=$profile/apply; }
  measure "$name-apply-$n-$i" "$TF" -chdir="$dir" apply -auto-approve -input=false -parallelism="$n" -var hosts="$n"
  echo "$n $name $i apply $wall $reqs $peak $kb $load $pcpu $core" >>"$work/rows"
  [ -z "$profile" ] || { mkdir -p "$profile/refresh"; export BAREMETAL_PROFILE_DIR=$profile/refresh; }
  measure "$name-refresh-$n-$i" "$TF" -chdir="$dir" plan -refresh-only -input=false -var hosts="$n"
  echo "$n $name $i refresh $wall $reqs 0 $kb $load $pcpu $core" >>"$work/rows"
  unset BAREMETAL_PROFILE_DIR
  # One host's labels changed: a refreshing plan of the whole state that
  # finds one update.
  measure "$name-plan-$n-$i" "$TF" -chdir="$dir" plan -input=false -var hosts="$n" -var changed=0
  grep -q '0 to add, 1 to change, 0 to destroy' "$work/$name-plan-$n-$i.log" ||
    { echo "bench: $name-plan-$n-$i did not plan one change" >&2; tail -5 "$work/$name-plan-$n-$i.log" >&2; exit 1; }
  echo "$n $name $i plan1 $wall $reqs 0 $kb $load $pcpu $core" >>"$work/rows"
  measure "$name-destroy-$n-$i" "$TF" -chdir="$dir" destroy -auto-approve -input=false -parallelism="$n" -var hosts="$n"
  echo "$n $name $i destroy $wall $reqs $peak $kb $load $pcpu $core" >>"$work/rows"
  # At the largest size, once more at a lower -parallelism: the provider's
  # memory is mostly Terraform's RPCs in flight (one per host at
  # -parallelism=N), while the capacity gate, not the parallelism, sets the
  # pace once enough hosts are in flight to keep it full.
  local p=${BENCH_LOW_PARALLELISM:-200}
  if [ "$n" = "$largest" ] && [ "$i" = 1 ] && [ "$name" = this ] && [ "$p" != 0 ] && [ "$p" -lt "$n" ]; then
    measure "$name-apply-p$p-$n" "$TF" -chdir="$dir" apply -auto-approve -input=false -parallelism="$p" -var hosts="$n"
    echo "$n $name $i apply-p$p $wall $reqs $peak $kb $load $pcpu $core" >>"$work/rows"
    measure "$name-destroy-p$p-$n" "$TF" -chdir="$dir" destroy -auto-approve -input=false -parallelism="$p" -var hosts="$n"
    echo "$n $name $i destroy-p$p $wall $reqs $peak $kb $load $pcpu $core" >>"$work/rows"
  fi
}

# The commit measured: the worktree as the provider is built from it.
commit=$(git -C "$here" rev-parse --short HEAD)
dirty=$(git -C "$here" status --porcelain --untracked-files=no | grep -q . && echo " (with uncommitted changes)" || true)
mkdir -p "$here/.tools/bench-provider"
go build -o "$work/gatepeak" ./bench/gatepeak
variants="this"
this_dir=$(provider_dir this work)
tfrc "$this_dir" "$work/this.tfrc"
if [ -n "${BENCH_COMPARE:-}" ]; then
  base_dir=$(provider_dir base "$BENCH_COMPARE")
  tfrc "$base_dir" "$work/base.tfrc"
  variants="base this"
fi
# report partial|final: writes bench/results.txt from the rows so far.
report() {
{
  echo "# make bench, $(date -u +%Y-%m-%dT%H:%MZ), commit $commit$dirty, $(nproc) cores, $(go version | cut -d' ' -f3)"
  echo "# $("$here/scripts/ironic.sh" version), database: $(grep -m1 '^connection' "$(dirname "$("$here/scripts/ironic.sh" log)")/ironic.conf" | sed 's/.*= *\([a-z+]*\):.*/\1/'), fake-hardware, $("$TF" version | head -1)"
  echo "# Ironic power-state sync every ${IRONIC_POWER_SYNC_INTERVAL} s (IRONIC_POWER_SYNC_INTERVAL)"
  echo "# Database: IRONIC_DB=${IRONIC_DB} (the bench's default is sqlite, as in the issue's own measurements; the"
  echo "# same rig on MariaDB made the floor about 5 times slower, so sqlite leaves the requests, not the database, to compare)"
  echo "# Load averages (1, 5, 15 min) at the start: $load_start; at this report: $(cut -d' ' -f1-3 /proc/loadavg)"
  [ "${BENCH_GATE_SIZE:-500}" = 0 ] || echo "# The gate lane: Ironic restarted with [fake] inspect_delay = ${BENCH_GATE_DELAY:-5} (seconds), one run at N=${BENCH_GATE_SIZE:-500}"
  [ -z "${BENCH_ROWS_NOTE:-}" ] || echo "# $BENCH_ROWS_NOTE"
  [ -z "${BENCH_COMPARE:-}" ] || echo "# base = provider built from $(git -C "$here" rev-parse --short "$BENCH_COMPARE") ($BENCH_COMPARE), measured in the same run"
  echo
  python3 - "$work/rows" "$variants" "${BENCH_GATE_DELAY:-5}" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
variants = sys.argv[2].split()
data = {}
for r in rows:
    n, who, run, phase, wall, reqs, peak, kb = r[:8]
    pcpu, core = (float(r[9]), float(r[10])) if len(r) > 10 else (0.0, 0.0)
    data.setdefault((int(n), who, phase), []).append((float(wall), int(reqs), int(peak), int(kb), pcpu, core))
def med(n, who, phase, i):
    v = data.get((n, who, phase))
    return statistics.median(x[i] for x in v) if v else None
def mx(n, who, phase, i):
    v = data.get((n, who, phase))
    return max(x[i] for x in v) if v else None
sizes = sorted({k[0] for k in data if k[2] == "apply"})
print("Medians of %s; wall and CPU in seconds; ratio = wall / the limit's wall in the same run" %
      ", ".join("%d run(s) at N=%d" % (len(data.get((n, "this", "apply"), [])), n) for n in sizes))
print("limit = the list-polling limit (bench/floor: paged lists every 0.2 s, at most 20 nodes inspecting or cleaning)")
print("req/host = Ironic requests per host; gate = most nodes inspecting/cleaning/deploying/deleting at once (bench/gatepeak)")
print("prov CPU = the provider processes' CPU; core CPU = Terraform's own (its CPU less the provider's); share = prov / core")
print()
print("| N | who | apply wall | ratio | req/host | gate | prov CPU | core CPU | peak RSS | refresh wall | req | prov CPU | core CPU | share | plan, 1 change | req | destroy wall | ratio | req/host |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for n in sizes:
    fa, fd = med(n, "floor", "apply", 0), med(n, "floor", "destroy", 0)
    if fa is not None and fd is not None:
        print("| %d | limit | %.1f | 1.00 | %.1f | %d | %.1f (client) | - | - | - | - | - | - | - | - | - | %.1f | 1.00 | %.1f |" % (
            n, fa, med(n, "floor", "apply", 1) / n, mx(n, "floor", "apply", 2), med(n, "floor", "apply", 4),
            fd, med(n, "floor", "destroy", 1) / n))
    ratio = lambda x, f: "%.2f" % (x / f) if f else "-"
    for who in variants:
        if (n, who, "apply") not in data:
            continue
        a, d = med(n, who, "apply", 0), med(n, who, "destroy", 0)
        rp, rc = med(n, who, "refresh", 4), med(n, who, "refresh", 5)
        print("| %d | %s | %.1f | %s | %.1f | %d | %.1f | %.1f | %.0f MB | %.1f | %d | %.1f | %.1f | %s | %s | %s | %.1f | %s | %.1f |" % (
            n, who, a, ratio(a, fa), med(n, who, "apply", 1) / n, mx(n, who, "apply", 2),
            med(n, who, "apply", 4), med(n, who, "apply", 5), max(mx(n, who, p, 3) or 0 for p in ("apply", "refresh", "plan1", "destroy")) / 1024,
            med(n, who, "refresh", 0), med(n, who, "refresh", 1), rp, rc, "%.0f%%" % (100 * rp / rc) if rc else "-",
            "%.1f" % med(n, who, "plan1", 0) if (n, who, "plan1") in data else "-",
            "%d" % med(n, who, "plan1", 1) if (n, who, "plan1") in data else "-",
            d, ratio(d, fd), med(n, who, "destroy", 1) / n))
low = sorted({(k[0], k[2][len("apply-p"):]) for k in data if k[1] == "this" and k[2].startswith("apply-p")})
if low:
    print()
    print("A lower -parallelism (the same hosts, one run): ratio = wall / the limit's wall at that N")
    print()
    print("| N | -parallelism | apply wall | ratio | req/host | gate | prov CPU | peak RSS | destroy wall | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n, p in low:
        fa, fd = med(n, "floor", "apply", 0), med(n, "floor", "destroy", 0)
        a, d = med(n, "this", "apply-p" + p, 0), med(n, "this", "destroy-p" + p, 0)
        print("| %d | %s | %.1f | %s | %.1f | %d | %.1f | %.0f MB | %s | %s |" % (
            n, p, a, "%.2f" % (a / fa) if fa else "-", med(n, "this", "apply-p" + p, 1) / n,
            mx(n, "this", "apply-p" + p, 2), med(n, "this", "apply-p" + p, 4),
            max(mx(n, "this", ph + p, 3) or 0 for ph in ("apply-p", "destroy-p")) / 1024,
            "%.1f" % d if d else "-", "%.2f" % (d / fd) if fd and d else "-"))
gates = sorted({k[0] for k in data if k[2] == "gate-apply"})
if gates:
    print()
    print("The gate lane (Ironic's fake inspection taking %s s): gate = most nodes busy at once, 20 the cap of both" % sys.argv[3])
    print()
    print("| N | who | apply wall | ratio | req/host | gate | prov CPU | peak RSS | destroy wall | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in gates:
        fa, fd = med(n, "floor", "gate-apply", 0), med(n, "floor", "gate-destroy", 0)
        for who in ("floor", "this"):
            if (n, who, "gate-apply") not in data:
                continue
            a, d = med(n, who, "gate-apply", 0), med(n, who, "gate-destroy", 0)
            print("| %d | %s | %.1f | %s | %.1f | %d | %.1f | %s | %.1f | %s |" % (
                n, "limit" if who == "floor" else who, a, "%.2f" % (a / fa) if fa else "-",
                med(n, who, "gate-apply", 1) / n, mx(n, who, "gate-apply", 2), med(n, who, "gate-apply", 4),
                "-" if who == "floor" else "%.0f MB" % (mx(n, who, "gate-apply", 3) / 1024),
                d or 0, "%.2f" % (d / fd) if fd and d else "-"))
print()
print("Every run (N who run phase wall requests gate-peak provider-peak-rss-kB load-average-1min-at-start provider-cpu-s core-cpu-s):")
for r in rows:
    print("  " + " ".join(r))
PY
} >"$out.tmp"
# The profiles: of each phase, the provider process that worked most (the
# largest CPU profile), CPU and heap (every allocation since its start).
if [ "$1" = final ]; then
  for phase in apply refresh; do
    d=$work/profile-$largest/$phase
    cpu=$(ls -S "$d"/cpu-*.pb.gz 2>/dev/null | head -1)
    [ -n "$cpu" ] || continue
    heap=${cpu/cpu-/heap-}
    {
      echo
      echo "## pprof of the provider in the $largest-host $phase: CPU (top 15)"
      go tool pprof -top -nodecount=15 "$this_dir/provider.bin" "$cpu" 2>/dev/null | sed -n '4,22p'
      if [ -s "$heap" ]; then
        echo
        echo "## pprof of the provider in the $largest-host $phase: heap, every allocation (alloc_space, top 15)"
        go tool pprof -top -nodecount=15 -sample_index=alloc_space "$this_dir/provider.bin" "$heap" 2>/dev/null | sed -n '4,22p'
      fi
    } >>"$out.tmp"
    cp "$cpu" "$here/bench/cpu-$largest-$phase.pb.gz"
    [ ! -s "$heap" ] || cp "$heap" "$here/bench/heap-$largest-$phase.pb.gz"
  done
fi
if [ "$1" = final ] && [ "${BENCH_GO_BENCH:-1}" != 0 ]; then
  {
    echo
    echo "## Go benchmarks"
    go test -run '^$' -bench . -benchtime 3x ./internal/ironic/ ./internal/lifecycle/ 2>&1 | grep -E '^(Benchmark|ok|PASS)' || true
  } >>"$out.tmp"
fi
echo >>"$out.tmp"
if [ "$1" = final ]; then
  echo "(bench took $(( $(date +%s) - bench_start )) s)" >>"$out.tmp"
else
  echo "(partial: measured up to N=$n after $(( $(date +%s) - bench_start )) s; the bench goes on)" >>"$out.tmp"
fi
mv "$out.tmp" "$out"
}

largest=$(echo $sizes | tr ' ' '\n' | sort -n | tail -1)
# BENCH_ROWS: the rows of an earlier run (its work directory's rows file)
# to report with this one's.
if [ -n "${BENCH_ROWS:-}" ]; then cp "$BENCH_ROWS" "$work/rows"; else : >"$work/rows"; fi
for n in $sizes; do
  k=1; [ "$n" -le "$median_max" ] && k=$runs
  for i in $(seq 1 "$k"); do
    echo "bench: N=$n run $i/$k" >&2
    # Odd runs go floor, then the variants; even runs the other way round:
    # one Ironic's pace wanders by 10% from one minute to the next, and
    # whoever always ran second would carry all of a drift.
    order="floor $variants"
    [ $((i % 2)) = 0 ] && order=$(echo $order | tr ' ' '\n' | tac | tr '\n' ' ')
    for v in $order; do
      if [ "$v" = floor ]; then
        [ "$n" -gt "${BENCH_FLOOR_MAX:-$n}" ] || run_floor "$n" "$i"
        continue
      fi
      [ "$v" = base ] && [ "$n" -gt "${BENCH_COMPARE_MAX:-$n}" ] && continue
      run_provider "$v" "$n" "$i"
    done
  done
  report partial
done

# The gate lane: the capacity gate only shows when inspection takes time
# (fake-hardware's ends at once, so at most 6 nodes were ever busy, for the
# limit and the provider alike). At BENCH_GATE_SIZE (500; 0 skips it) one
# run of the limit's and the provider's apply and destroy against an
# Ironic whose fake inspection takes BENCH_GATE_DELAY (5) seconds
# ([fake] inspect_delay): both should keep 20 nodes busy, and the apply
# cannot beat N * delay / 20 seconds.
gate_size=${BENCH_GATE_SIZE:-500} gate_delay=${BENCH_GATE_DELAY:-5}
if [ "$gate_size" != 0 ]; then
  echo "bench: the gate lane, N=$gate_size, inspection $gate_delay s" >&2
  [ -x "$work/floor" ] || go build -o "$work/floor" ./bench/floor
  "$here/scripts/ironic.sh" stop
  IRONIC_FAKE_OPTS="inspect_delay = $gate_delay" "$here/scripts/ironic.sh" start
  for v in floor this; do
    if [ "$v" = floor ]; then
      measure "gate-floor-apply-$gate_size" "$work/floor" -endpoint "$endpoint" -hosts "$gate_size" -prefix gatefloor apply
      echo "$gate_size floor 1 gate-apply $wall $reqs $peak 0 $load $cpu 0" >>"$work/rows"
      measure "gate-floor-destroy-$gate_size" "$work/floor" -endpoint "$endpoint" -hosts "$gate_size" -prefix gatefloor destroy
      echo "$gate_size floor 1 gate-destroy $wall $reqs $peak 0 $load $cpu 0" >>"$work/rows"
      continue
    fi
    dir=$work/tf-gate-$gate_size
    mkdir -p "$dir"
    sed "s/fleet-\${count.index}/gate-\${count.index}/" bench/fleet/main.tf >"$dir/main.tf"
    export TF_CLI_CONFIG_FILE=$work/this.tfrc
    measure "gate-this-apply-$gate_size" "$TF" -chdir="$dir" apply -auto-approve -input=false -parallelism="$gate_size" -var hosts="$gate_size"
    echo "$gate_size this 1 gate-apply $wall $reqs $peak $kb $load $pcpu $core" >>"$work/rows"
    measure "gate-this-destroy-$gate_size" "$TF" -chdir="$dir" destroy -auto-approve -input=false -parallelism="$gate_size" -var hosts="$gate_size"
    echo "$gate_size this 1 gate-destroy $wall $reqs $peak $kb $load $pcpu $core" >>"$work/rows"
  done
fi

report final
cat "$out"
