#!/usr/bin/env bash
# Regenerates docs/ from templates/, examples/ and the provider's schemas with
# tfplugindocs, offline: the locally built Terraform is first on PATH.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
tf=$(scripts/terraform.sh)
export PATH="$(dirname "$tf"):$PATH"
export TF_CLI_CONFIG_FILE="$here/.tools/terraformrc"
: >"$TF_CLI_CONFIG_FILE"
"$tf" fmt -recursive examples/
go run github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs@v0.25.0 generate --provider-name baremetal
