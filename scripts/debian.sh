# Shared by ironic.sh and ipa.sh, which build Debian folders with
# debootstrap and keep them outside the clone.

# cache_dir: where the folders and their tarballs are kept.
cache_dir() { echo "${BAREMETAL_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-baremetal}"; }

# mirror: the Debian mirror of the host's apt sources (deb822 or one-line).
mirror() {
  local m
  m=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
    sed -n -E 's#^(URIs:[[:space:]]*|deb[[:space:]]+(\[[^]]*\][[:space:]]+)?)(https?://[^[:space:]]+/debian)/?([[:space:]].*)?$#\3#p' | head -1)
  echo "${m:-http://deb.debian.org/debian}"
}
