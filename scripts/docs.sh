#!/usr/bin/env bash
# Regenerates docs/ from templates/, examples/ and the provider's schemas with
# tfplugindocs, offline: the locally built Terraform is first on PATH.
# It is always a Terraform 1.14+ (scripts/terraform.sh 1.14: the one found,
# else v1.14.9 built once a machine), whichever Terraform the caller found:
# older ones leave the list resources (and identities) out of the schema
# tfplugindocs reads, and do not format .tfquery.hcl files, so the docs
# would depend on the machine.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
tf=$(scripts/terraform.sh 1.14)
export PATH="$(dirname "$tf"):$PATH"
mkdir -p "$here/.tools"
export TF_CLI_CONFIG_FILE="$here/.tools/terraformrc"
: >"$TF_CLI_CONFIG_FILE"
"$tf" fmt -recursive examples/
go run github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs@v0.25.0 generate --provider-name baremetal
# README's "Measured" figures: the table of the last benchmark run, copied
# from bench/results.txt between the bench markers.
python3 - <<'PY'
import re
results = open("bench/results.txt").read().splitlines()
head = [l[2:] for l in results[:2] if l.startswith("# ")]
start = next((i for i, l in enumerate(results) if l.startswith("Medians")), None)
table = []
if start is not None:
    for l in results[start:]:
        if not l.strip() and any(t.startswith("|") for t in table):
            break
        table.append(l)
lines = [f"From `bench/results.txt` ({'; '.join(head)}):", ""]
for l in table:
    lines.append(l if l.startswith("|") or not l.strip() else l + "  ")
block = "\n".join(lines).rstrip() + "\n"
readme = open("README.md").read()
new = re.sub(r"(<!-- bench:begin[^\n]*-->\n).*?(<!-- bench:end -->)", lambda m: m.group(1) + block + m.group(2), readme, flags=re.S)
if new != readme:
    open("README.md", "w").write(new)
PY
