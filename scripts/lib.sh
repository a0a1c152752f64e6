# Shared by demo.sh and bench.sh: a Terraform that uses this repository's
# provider build (dev_overrides), next to a running Ironic.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$here/scripts/debian.sh"

# tfrc DIR FILE: a Terraform CLI config in FILE that takes the provider
# from DIR (dev_overrides).
tfrc() {
  printf 'provider_installation {\n  dev_overrides {\n    "registry.terraform.io/baremetal-tf/baremetal" = "%s"\n  }\n  direct {}\n}\n' "$1" >"$2"
}

setup_terraform() {
  TF=$("$here/scripts/terraform.sh")
  mkdir -p "$here/.tools/bin"
  go build -o "$here/.tools/provider/terraform-provider-baremetal" "$here"
  export TF_CLI_CONFIG_FILE="$here/.tools/dev.tfrc"
  tfrc "$here/.tools/provider" "$TF_CLI_CONFIG_FILE"
  export BAREMETAL_ENDPOINT=http://127.0.0.1:${IRONIC_PORT:-6385}
}

# tf DIR ARGS...: run terraform in DIR (no init: dev_overrides need none).
tf() {
  local dir=$1; shift
  "$TF" -chdir="$dir" "$@"
}

ironic_requests() { "$here/scripts/ironic.sh" requests; }

# vm_tools: qemu for the simulator's VM machines (their NICs' boot ROMs are
# ipxe-qemu's), installed when missing.
vm_tools() {
  command -v qemu-system-x86_64 >/dev/null && command -v qemu-img >/dev/null &&
    [ -f /usr/lib/ipxe/qemu/efi-virtio.rom ] && return 0
  host_install qemu-system-x86 ipxe-qemu qemu-utils
}
