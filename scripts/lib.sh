# Shared by demo.sh and bench.sh: a Terraform that uses this repository's
# provider build (dev_overrides), next to a running Ironic.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

setup_terraform() {
  TF=$("$here/scripts/terraform.sh")
  mkdir -p "$here/.tools/bin"
  go build -o "$here/.tools/provider/terraform-provider-baremetal" "$here"
  export TF_CLI_CONFIG_FILE="$here/.tools/dev.tfrc"
  cat >"$TF_CLI_CONFIG_FILE" <<RC
provider_installation {
  dev_overrides {
    "registry.terraform.io/baremetal-tf/baremetal" = "$here/.tools/provider"
  }
  direct {}
}
RC
  export BAREMETAL_ENDPOINT=http://127.0.0.1:${IRONIC_PORT:-6385}
}

# tf DIR ARGS...: run terraform in DIR (no init: dev_overrides need none).
tf() {
  local dir=$1; shift
  "$TF" -chdir="$dir" "$@"
}

ironic_requests() { "$here/scripts/ironic.sh" requests; }
