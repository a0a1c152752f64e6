#!/usr/bin/env bash
# Regenerates internal/validators/standard_traits.txt: the standard traits of
# the os-traits library that the rig's Ironic accepts (Ironic validates a
# trait as one of these, or CUSTOM_[A-Z0-9_]+). Needs python3-os-traits,
# which Debian's ironic-api package pulls in (scripts/ironic.sh installs it).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/internal/validators/standard_traits.txt
/usr/bin/python3 - >"$out" <<'PY'
import os_traits
print("# Standard traits of os-traits %s (regenerate with scripts/gen-traits.sh)." % getattr(os_traits, "__version__", ""))
for t in sorted(os_traits.get_traits()):
    print(t)
PY
echo "wrote $(grep -vc '^#' "$out") traits to $out"
