#!/usr/bin/env bash
# Runs every test: unit tests, then acceptance tests with a real Ironic
# (installed from Debian's packages and started on loopback) and a Terraform
# CLI built from source. Everything it needs it installs itself.
#
#   scripts/test.sh            unit + acceptance, then the fault suite
#                              (scripts/faults.sh)
#   scripts/test.sh unit       unit tests only (no Ironic, no Terraform:
#                              real-Ironic and acceptance tests skip)
#   scripts/test.sh acc        acceptance tests only
#   scripts/test.sh compat     COMPAT_TESTS and the fault suite on Ironic
#                              2023.1 (Debian 12's, with ironic-inspector),
#                              the oldest supported: the smoke subset, the
#                              tests of what 2025.1 adds (refused at plan
#                              on 2023.1) and every test with a branch for
#                              an older microversion
#   scripts/test.sh newest     the smoke subset on Debian unstable's Ironic
#   scripts/test.sh current    the tests of what Ironic 2025.1 adds (runbooks,
#                              inspection rules, bonds, the OCI pull, the
#                              virtual media API, abort and force delete,
#                              built-in inspection) on 2025.1 alone: a quick
#                              check, all runs them too
#   scripts/test.sh vm         the end-to-end lane (TestVM_*): hosts that are
#                              qemu machines running the real agent, on
#                              Ironic 2025.1 with IRONIC_VM=1; builds (or
#                              takes from the cache) the agent's ramdisk
#                              (scripts/ipa.sh) and the OS image
#                              (scripts/osimage.sh), and installs qemu
#   scripts/test.sh discovery  the discovery test (TestAccDiscovery_*) on Ironic
#                              2025.1 with auto-discovery on: Ironic 2023.1
#                              has no built-in inspection to discover with, so
#                              all and acc leave it to this lane
#
# IRONIC_RELEASE picks the Ironic of all, unit and acc (see
# scripts/ironic.sh): 2025.1 by default, the rig's own default; the compat
# lane keeps 2023.1, the oldest supported, covered.
#
# Tests that need the real Ironic run only when asked, with TF_ACC=1
# (acceptance tests) and BAREMETAL_IRONIC_TESTS=1 (provisioner tests against
# Ironic); this script sets both for all and acc, and then any skipped test
# fails the run: a rig that is missing or half there must not pass quietly.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
mode=${1:-all}
began=$(date +%s)
summary="tests: none ran"
# The smoke subset of the newest lane: register, inspect (agent
# inspection: ironic-inspector on 2023.1), LLDP, deploy and destroy (fake
# and agent), a data image, firmware settings and updates, and the tests
# of features an older Ironic refuses (oci:// images, disable_power_off,
# firmware below 1.87).
SMOKE_TESTS=${SMOKE_TESTS:-'^(TestAccHost_lifecycle|TestAccAgent_inspection|TestAccHostPorts_lldp|TestAccAgent_deploy|TestAccDeployment_lifecycle|TestAccDataImage_sim|TestAccFirmwareSettings_fake|TestAccFirmwareSettings_provisionedBelow187|TestAccFirmwareUpdate_redfish|TestAccFirmwareUpdate_ironicFirmwareAPI|TestAccDeployment_ociOnOldIronic|TestAccHostPower_disablePowerOff|TestAccAgent_firmwareSettingsServicing|TestAccFirmwareSettings_provisionedBelow187|TestAccHostDay2_reinspect|TestAccSecretsNotLeaked|TestAccAgent_faults|TestAccAgent_firmwareUpdate)$'}
DISCOVERY_TESTS='^TestAccDiscovery_'
VM_TESTS='^TestVM_'
CURRENT_TESTS=${CURRENT_TESTS:-'^(TestAccInspectionRule_classifiesForClaim|TestAccRunbookAndRule_crud|TestAccIdentity_runbookAndRule|TestAccAction_runbookServicing|TestAccHostPortGroups_.*|TestAccDeployment_ociOnOldIronic|TestAccAgent_inspection|TestAccHostHardwareTypeMissing|TestAccDataImage_.*|TestAccHostHealthFromBMC|TestAccAgent_deployHistoryAndSteps|TestAccAgent_detachAbortsCleanWait|TestAccAgent_forceDeleteDeployWait|TestIronicErrorNamesRequestID|TestIronicFailureHistory|TestAccHostPower_disablePowerOff|TestAccAgent_firmwareSettingsServicing|TestAccFirmwareSettings_provisionedBelow187|TestAccHostDay2_reinspect|TestAccSecretsNotLeaked|TestAccAgent_faults|TestAccAgent_firmwareUpdate)$'}
# The compat lane: SMOKE_TESTS, CURRENT_TESTS, and the tests that branch
# on the Ironic's microversion (acctest.IronicAtLeast) or exercise the
# direct Redfish paths an older Ironic needs.
COMPAT_TESTS=${COMPAT_TESTS:-"$SMOKE_TESTS|$CURRENT_TESTS|^(TestAccFirmware_redfish|TestAccHardware_redfish|TestAccFirmwareUpdate_bmcProfiles|TestAccAgent_firmwareUpdate|TestAccDataImage_.*)\$"}
case $mode in
  compat) export IRONIC_RELEASE=2023.1 ;;
  newest) export IRONIC_RELEASE=newest ;;
  discovery) export IRONIC_RELEASE=2025.1 IRONIC_AUTO_DISCOVERY=1 ;;
  # A rig of its own (ports, run dir), so that the lane can run beside
  # the compatibility and discovery lanes (.ci/run).
  vm) export IRONIC_RELEASE=2025.1 IRONIC_VM=1 IRONIC_PORT=${IRONIC_PORT:-6390} IRONIC_HTTP_PORT=${IRONIC_HTTP_PORT:-8090} \
      IRONIC_RUN_DIR=${IRONIC_RUN_DIR:-$here/.tools/run-vm} ;;
  current) export IRONIC_RELEASE=2025.1 ;;
  *) export IRONIC_RELEASE=${IRONIC_RELEASE:-2025.1} ;;
esac
smoke=
case $mode in compat | newest | discovery | current | vm) smoke=1 ;; esac
# go test's log: the smoke lanes keep theirs apart, so that one can run
# beside make test (on other ports).
testlog=$here/.tools/test.log
[ -z "$smoke" ] || testlog=$here/.tools/test-$mode.log

export TF_CLI_CONFIG_FILE="$here/.tools/terraformrc"
mkdir -p "$here/.tools"
: >"$TF_CLI_CONFIG_FILE"
# Parallelism is kept low: the machines have 2 cores, and a fake-hardware
# host keeps the single Ironic conductor busy for several seconds.
GO_TEST_FLAGS=${GO_TEST_FLAGS:-"-p 2 -parallel 4 -timeout 50m"}

# slowest LOG...: the ten slowest top-level tests of go test -v logs, with
# their package (from the ok/FAIL line that closes each package's output).
slowest() {
  echo "== ten slowest tests"
  awk '/^--- (PASS|FAIL): /{t[$3]=$4; n[$3]=1}
       /^(ok|FAIL)[ \t]+[^ \t]+\//{for(k in n){p[k]=$2}; delete n}
       END{for(k in t){s=t[k]; gsub(/[()s]/,"",s); printf "%9.1f s  %s  %s\n", s, k, p[k]}}' "$@" |
    sort -rn | awk 'NR <= 10' # not head: under pipefail its early exit fails sort (SIGPIPE)
}

# run_tests ARGS...: go test -v into a log; print package results, the
# output of failed tests, and one summary line; keep go test's exit code,
# and with NO_SKIPS=1 fail when any test skipped.
run_tests() {
  local log=$testlog rc
  set +e
  go test $GO_TEST_FLAGS -v "$@" >"$log" 2>&1
  rc=$?
  set -e
  grep -E '^(ok|FAIL|panic:|\?|--- FAIL)' "$log" || true
  if [ "$rc" -ne 0 ]; then
    echo "== output of failed tests (full log: $log)"
    grep -E -B2 -A40 -- '--- FAIL' "$log" | head -400 || true
  fi
  local skipped
  skipped=$(grep -cE -- '--- SKIP' "$log" || true)
  summary="tests: $(grep -cE -- '--- PASS' "$log") passed, $(grep -cE -- '--- FAIL' "$log") failed, $skipped skipped"
  echo "$summary"
  if [ "${NO_SKIPS:-}" = 1 ] && [ "$skipped" -gt 0 ]; then
    echo "== skipped tests fail this run (everything they need is here):"
    grep -E -A2 -- '--- SKIP' "$log" | head -100
    [ "$rc" -ne 0 ] || rc=1
  fi
  return "$rc"
}

if [ "$mode" = unit ]; then
  unset TF_ACC BAREMETAL_IRONIC_TESTS
  rc=0
  run_tests ./... || rc=$?
  slowest "$testlog"
  echo "$summary"
  exit "$rc"
fi

tf=$(scripts/terraform.sh)
# The tests of resource identity, list resources (terraform query) and
# actions need Terraform 1.14+: the one found, else v1.14.9 built once a
# machine into the tools cache (acctest.Terraform114 points those tests at
# it; the rest run with $tf).
tf114=$(scripts/terraform.sh 1.14)
# golangci-lint runs while the rigs start (both take about a minute, lint
# mostly on the CPU, the rigs mostly waiting on Python's start-up); the
# smoke lanes leave it to make test.
if [ -n "$smoke" ]; then
  true &
else
  scripts/lint.sh >"$here/.tools/lint.out" 2>&1 &
fi
lint=$!
# The Keystone tests' rig (a Keystone with short-lived tokens and an Ironic
# behind it, see scripts/keystone.sh) starts beside the main Ironic. Tokens
# live a minute: on a loaded machine Keystone and keystonemiddleware take
# tens of seconds to validate one, and a shorter life expires tokens before
# they are checked. Inspection there takes longer, so that an apply outlives
# a token.
# The main Ironic also runs ironic-inspector, for the agent inspection tests
# (only it: the Keystone rig's Ironic does not).
# (On 2023.1 only: later Ironic releases inspect by themselves.)
inspector=${IRONIC_INSPECTOR:-1}
IRONIC_INSPECTOR=$inspector scripts/ironic.sh install
# The end-to-end lane's machines: qemu (its NICs' boot ROMs are
# ipxe-qemu's), the agent's ramdisk and the OS image, built while the rig
# starts (or taken from the cache at once).
vm_builds=
if [ "$mode" = vm ]; then
  # shellcheck source=scripts/lib.sh
  source "$here/scripts/lib.sh"
  vm_tools
  (scripts/ipa.sh build >/dev/null && scripts/osimage.sh build >/dev/null) &
  vm_builds=$!
fi
if [ -n "$smoke" ]; then
  trap 'KEEP_IRONIC_LOGS=${KEEP_IRONIC_LOGS:-} scripts/ironic.sh stop' EXIT
  true &
else
  scripts/keystone.sh install
  trap 'KEEP_IRONIC_LOGS=${KEEP_IRONIC_LOGS:-} scripts/keystone.sh stop; KEEP_IRONIC_LOGS=${KEEP_IRONIC_LOGS:-} scripts/ironic.sh stop' EXIT
  KEYSTONE_TOKEN_EXPIRATION=${KEYSTONE_TOKEN_EXPIRATION:-60} \
    KEYSTONE_IRONIC_FAKE_OPTS=${KEYSTONE_IRONIC_FAKE_OPTS:-"inspect_delay = 70"} scripts/keystone.sh start &
fi
keystone_rig=$!
IRONIC_INSPECTOR=$inspector scripts/ironic.sh start
wait "$keystone_rig"
ironic_version=$(scripts/ironic.sh version)
echo "== tests run on $ironic_version"
lint_rc=0
wait "$lint" || lint_rc=$?
[ -n "$smoke" ] || cat "$here/.tools/lint.out"
[ "$lint_rc" = 0 ] || { echo "lint failed"; exit "$lint_rc"; }
set -a
[ -n "$smoke" ] || eval "$(scripts/keystone.sh env)"
# BAREMETAL_ENDPOINT, and BAREMETAL_INSPECTOR_URL when inspector runs.
eval "$(scripts/ironic.sh env)"
if [ -n "$vm_builds" ]; then
  wait "$vm_builds" || { echo "building the agent's ramdisk or the OS image failed"; exit 1; }
  # IPA_KERNEL, IPA_RAMDISK, OS_IMAGE, OS_IMAGE_SHA256.
  eval "$(scripts/ipa.sh env)"
  eval "$(scripts/osimage.sh env)"
fi
set +a
export TF_ACC=1 BAREMETAL_IRONIC_TESTS=1 NO_SKIPS=1 TF_ACC_TERRAFORM_PATH="$tf" BAREMETAL_TF114_PATH="$tf114"
unset TF_ACC_TERRAFORM_VERSION

# The fault suite kills its rig, so it has a rig of its own
# (scripts/faults.sh) on another port, and runs beside the other tests:
# they are mostly waiting on Ironic, not on the CPU.
faults=
if [ "$mode" = all ] || [ "$mode" = compat ]; then
  IRONIC_PORT=${FAULTS_IRONIC_PORT:-6386} scripts/faults.sh >"$here/.tools/faults.out" 2>&1 &
  faults=$!
fi
# The longest package first: go test starts packages in the order given,
# and the resources package alone takes most of the run; the others then
# share the second slot (-p 2) beside it instead of delaying its start.
pkgs=$(go list ./... | grep -v '/internal/faults$' | awk '/\/internal\/resources$/{print; next} {rest = rest $0 "\n"} END{printf "%s", rest}')
rc=0
if [ "$mode" = discovery ]; then
  # shellcheck disable=SC2086
  run_tests -run "$DISCOVERY_TESTS" ./internal/resources/ || rc=$?
elif [ "$mode" = vm ]; then
  run_tests -run "$VM_TESTS" ./internal/resources/ || rc=$?
elif [ "$mode" = current ]; then
  # shellcheck disable=SC2086
  run_tests -run "$CURRENT_TESTS" $pkgs || rc=$?
elif [ "$mode" = compat ]; then
  # shellcheck disable=SC2086
  run_tests -run "$COMPAT_TESTS" $pkgs || rc=$?
elif [ -n "$smoke" ]; then
  # shellcheck disable=SC2086
  run_tests -run "$SMOKE_TESTS" $pkgs || rc=$?
elif [ "$mode" = acc ]; then
  # shellcheck disable=SC2086
  run_tests -run 'Acc' -skip "$DISCOVERY_TESTS|$VM_TESTS" $pkgs || rc=$?
else
  # shellcheck disable=SC2086
  run_tests -skip "$DISCOVERY_TESTS|$VM_TESTS" $pkgs || rc=$?
fi
if [ -n "$smoke" ]; then
  echo "ironic requests served: $(scripts/ironic.sh requests)"
else
  echo "ironic requests served: $(scripts/ironic.sh requests) (keystone-auth Ironic: $(scripts/keystone.sh requests))"
fi
logs=("$testlog")
if [ -n "$faults" ]; then
  wait "$faults" || rc=1
  cat "$here/.tools/faults.out"
  logs+=("$here/.tools/faults.log")
fi
slowest "${logs[@]}"
echo "make test ($mode) took $(( $(date +%s) - began )) s, on $ironic_version"
echo "$summary"
exit "$rc"
