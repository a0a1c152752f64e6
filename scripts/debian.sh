# Shared by ironic.sh, ipa.sh and osimage.sh, which build Debian folders
# with debootstrap and keep them outside the clone, and by every script
# that installs host packages (host_install).

# cache_dir: where the folders and their tarballs are kept.
cache_dir() { echo "${BAREMETAL_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-baremetal}"; }

# mirror: the Debian mirror of the host's apt sources (deb822 or one-line).
mirror() {
  local m
  m=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
    sed -n -E 's#^(URIs:[[:space:]]*|deb[[:space:]]+(\[[^]]*\][[:space:]]+)?)(https?://[^[:space:]]+/debian)/?([[:space:]].*)?$#\3#p' | head -1)
  echo "${m:-http://deb.debian.org/debian}"
}

# debootstrap_root DIR SUITE MIRROR LOG: a minbase SUITE root in DIR in
# which installing packages starts nothing (policy-rc.d) and dpkg skips
# fsync. debootstrap mounts /proc and /sys in DIR itself: in a mount
# namespace of its own, they cannot outlive it.
debootstrap_root() {
  local dir=$1 suite=$2 m=$3 out=$4
  unshare --mount --propagation private debootstrap --variant=minbase \
    --keyring=/usr/share/keyrings/debian-archive-keyring.gpg "$suite" "$dir" "$m" >"$out" 2>&1 ||
    { log "debootstrap failed:"; tail -20 "$out" >&2; return 1; }
  printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
  chmod 755 "$dir/usr/sbin/policy-rc.d"
  echo force-unsafe-io >"$dir/etc/dpkg/dpkg.cfg.d/unsafe-io"
}

# in_image_root ROOT CMD...: CMD chrooted in ROOT, in a mount namespace of
# its own (nothing stays mounted on the host), for the image builds
# (ipa.sh, osimage.sh). The rig's in_root (ironic.sh) also mounts the
# host's /tmp, which an image must not see.
in_image_root() {
  local root=$1; shift
  # shellcheck disable=SC2016
  unshare --mount --propagation private /bin/sh -c 'r=$1; shift
mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" || exit 1
exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"' sh "$root" "$@"
}

# host_install PKG...: install the host's packages PKG (non-interactive).
# No PKG: nothing. CI runs lanes side by side on a fresh machine, and two
# of them may install at once (qemu for the VM lane, Debian 12's Ironic
# for the compatibility lane): apt's DPkg::Lock::Timeout waits for dpkg's
# lock only, and a second `apt-get update` fails at once on the lists'
# lock ("Could not get lock /var/lib/apt/lists/lock"). So this
# repository's installs take turns on one lock file, and an update that
# meets another program's apt (apt-daily at boot) is tried again.
host_install() {
  [ $# = 0 ] && return 0
  echo "$(basename "$0"): installing $*" >&2
  (
    export DEBIAN_FRONTEND=noninteractive
    flock -w 1800 9 || { echo "host_install: another install held /run/lock/baremetal-tf-apt.lock for 30 minutes" >&2; exit 1; }
    local i err
    for i in $(seq 1 120); do
      err=$(apt-get -o DPkg::Lock::Timeout=1200 update -qq 2>&1) && break
      if [ "$i" = 120 ] || ! grep -q 'Could not get lock' <<<"$err"; then echo "$err" >&2; exit 1; fi
      [ "$i" = 1 ] && echo "host_install: apt's lists are locked by another apt; waiting up to 10 minutes" >&2
      sleep 5
    done
    apt-get -o DPkg::Lock::Timeout=1200 install -y -qq --no-install-recommends "$@" >/dev/null
  ) 9>/run/lock/baremetal-tf-apt.lock
}

# image_root ROOT SUITE LOG: debootstrap_root of SUITE in ROOT for an image
# build, with apt's sources (the suite, its updates and security) and the
# host's resolver.
image_root() {
  local root=$1 suite=$2 m
  m=$(mirror)
  log "debootstrap $suite from $m"
  debootstrap_root "$root" "$suite" "$m" "$3" || return 1
  printf 'deb %s %s main\ndeb %s %s-updates main\ndeb %s/debian-security %s-security main\n' \
    "$m" "$suite" "$m" "$suite" "${m%/debian}" "$suite" >"$root/etc/apt/sources.list"
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
}

# cached_image DEST PRODUCT WHAT: the build both image scripts share, by
# their build_root, pack, host_tools and ready. DEST/PRODUCT exists:
# nothing to do. Else, one build at a time (flock): build_root and pack in
# a temp folder beside DEST, the root's package list and size kept, the
# root dropped, the folder moved to DEST. Prints DEST.
cached_image() {
  local dest=$1 product=$2 what=$3
  if [ -f "$dest/$product" ]; then
    echo "$dest"; return
  fi
  host_tools
  mkdir -p "$(dirname "$dest")"
  (
    flock 9
    [ -f "$dest/$product" ] && exit 0
    began=$(date +%s)
    tmp=$dest.tmp.$$
    rm -rf "$tmp"; mkdir -p "$tmp"
    log "building $what in $tmp"
    build_root "$tmp" || { rm -rf "$tmp"; exit 1; }
    chroot "$tmp/root" dpkg-query -W -f '${Package} ${Version}\n' >"$tmp/packages.txt"
    pack "$tmp" || { rm -rf "$tmp"; exit 1; }
    du -sh "$tmp/root" | cut -f1 >"$tmp/root-size.txt"
    rm -rf "$tmp/root"
    mv "$tmp" "$dest"
    log "$what ready in $(( $(date +%s) - began )) s: $dest ($(wc -l <"$dest/packages.txt") packages; $(ready "$dest"))"
  ) 9>"$dest.lock" || return 1
  echo "$dest"
}
