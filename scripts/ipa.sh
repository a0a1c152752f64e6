#!/usr/bin/env bash
# The real Ironic Python Agent's ramdisk, built from Debian 13's packages
# the way ironic-python-agent-builder builds one: a debootstrap'd trixie
# root with the agent (ironic-python-agent 10.2.0, Ironic 2025.1's), the
# tools its hardware manager runs, systemd and udev, packed as a zstd newc
# initramfs that is the root file system, beside the kernel, and both
# wrapped in a BIOS+UEFI ISO (grub-mkrescue).
#
#   scripts/ipa.sh build   build (or restore) the ramdisk; prints its folder
#   scripts/ipa.sh env     IPA_KERNEL=, IPA_RAMDISK=, IPA_ISO= of the cache
#   scripts/ipa.sh key     the cache key (a hash of the recipe)
#
# The ramdisk lives outside the clone, in
# ${BAREMETAL_TOOLS_CACHE:-~/.cache/terraform-provider-baremetal}/ipa-<key>/,
# rebuilt only when the recipe below changes (its hash names the folder).
# A build takes 5-7 minutes on 2 quiet cores (about 20 loaded) and 1 GB of
# disk at its peak; the result is about 370 MB (kernel 12 MB, initramfs
# about 160 MB, ISO about 190 MB).
#
# Debian's agent package depends on image-builder tools the agent never
# runs in a ramdisk (libguestfs-tools, which drags in qemu-system and
# libvirt; git, man-db, fio, stress-ng, ...): the build repacks the .deb
# without them, which keeps the root under 500 MB.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/debian.sh
source "$here/scripts/debian.sh"
log() { echo "ipa.sh: $*" >&2; }

suite=trixie
# What the ramdisk holds besides the agent: the kernel, an init, the
# network (networkd, DHCP on every NIC), and the tools the agent's
# hardware manager and its deploy steps call.
packages="linux-image-amd64 systemd-sysv udev kmod iproute2 ca-certificates util-linux lshw dmidecode
parted gdisk mdadm hdparm smartmontools efibootmgr qemu-utils dosfstools e2fsprogs xfsprogs pciutils"
# The agent package's dependencies the ramdisk leaves out.
drop_depends="libguestfs-tools python3-guestfs python3-libvirt git man-db fio stress-ng sysbench tuned lldpad infiniband-diags open-iscsi"
# Bump when the steps below change.
recipe_version=3

key() {
  printf '%s\n' "$suite" "$packages" "$drop_depends" "$recipe_version" | sha256sum | cut -c1-12
}

out() { echo "$(cache_dir)/ipa-$(key)"; }

host_tools() {
  local want=()
  command -v debootstrap >/dev/null || want+=(debootstrap)
  command -v zstd >/dev/null || want+=(zstd)
  command -v cpio >/dev/null || want+=(cpio)
  command -v grub-mkrescue >/dev/null || want+=(grub-common)
  command -v xorriso >/dev/null || want+=(xorriso)
  command -v mformat >/dev/null || want+=(mtools)
  [ -d /usr/lib/grub/i386-pc ] || want+=(grub-pc-bin)
  [ -d /usr/lib/grub/x86_64-efi ] || want+=(grub-efi-amd64-bin)
  host_install "${want[@]}"
}

# build_root DIR: the ramdisk's root in DIR/root.
build_root() {
  local dir=$1 root=$1/root
  # Nothing starts while packages install; dpkg skips fsync.
  image_root "$root" "$suite" "$dir/debootstrap.log" || return 1
  # The agent's package, repacked without the dependencies it never uses
  # in a ramdisk.
  in_image_root "$root" sh -ec '
apt-get -o DPkg::Lock::Timeout=1200 update -qq
cd /tmp && apt-get download -qq ironic-python-agent
rm -rf /tmp/ipa && dpkg-deb -R /tmp/ironic-python-agent_*.deb /tmp/ipa' >"$dir/apt.log" 2>&1 ||
    { log "downloading the agent's package failed:"; tail -30 "$dir/apt.log" >&2; return 1; }
  local control=$root/tmp/ipa/DEBIAN/control
  awk -v drop="$drop_depends" 'BEGIN { n = split(drop, d, " "); for (i = 1; i <= n; i++) D[d[i]] = 1 }
/^Depends: / { sub(/^Depends: /, ""); m = split($0, a, ", "); out = ""
  for (i = 1; i <= m; i++) { name = a[i]; sub(/ .*/, "", name); if (!(name in D)) out = out (out == "" ? "" : ", ") a[i] }
  print "Depends: " out; next }
{ print }' "$control" >"$control.new" && mv "$control.new" "$control"
  log "the agent's package, repacked: $(grep '^Depends:' "$control")"
  in_image_root "$root" sh -ec '
dpkg-deb -b /tmp/ipa /tmp/ipa.deb >/dev/null
apt-get -o DPkg::Lock::Timeout=1200 install -y -qq --no-install-recommends '"$(echo $packages)"' /tmp/ipa.deb
apt-get clean
rm -rf /tmp/ipa /tmp/ipa.deb /tmp/ironic-python-agent_*.deb /var/lib/apt/lists/*' >>"$dir/apt.log" 2>&1 ||
    { log "installing the packages failed:"; tail -30 "$dir/apt.log" >&2; return 1; }
  # libguestfs-tools is the one that matters (it drags in qemu-system and
  # libvirt); others may come back as another package's dependency.
  local back=""
  for dep in $drop_depends; do
    [ -e "$root/var/lib/dpkg/info/$dep.list" ] && back="$back $dep"
  done
  case " $back " in
    *" libguestfs-tools "*) log "libguestfs-tools is installed although dropped: the repacking failed"; return 1 ;;
  esac
  [ -z "$back" ] || log "pulled in by other packages although dropped from the agent's:$back"
  rm -f "$root/usr/sbin/policy-rc.d" "$root/etc/dpkg/dpkg.cfg.d/unsafe-io"
  # The root is the initramfs: the kernel runs /init.
  ln -sf /lib/systemd/systemd "$root/init"
  # DHCP on every wired NIC, with systemd-networkd.
  mkdir -p "$root/etc/systemd/network"
  printf '[Match]\nName=en* eth*\n[Network]\nDHCP=yes\n[DHCPv4]\nClientIdentifier=mac\n' >"$root/etc/systemd/network/80-dhcp.network"
  # Debian's package has a sysvinit script only: the agent gets a unit of
  # its own, as ironic-python-agent-builder gives it, logging to the
  # console (the serial port under qemu -nographic).
  rm -f "$root/etc/init.d/ironic-python-agent"
  cat >"$root/etc/systemd/system/ironic-python-agent.service" <<'UNIT'
[Unit]
Description=Ironic Python Agent
After=network-online.target
Wants=network-online.target

[Service]
ExecStart=/usr/bin/ironic-python-agent
Restart=always
RestartSec=30s
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
UNIT
  mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
  ln -sf /etc/systemd/system/ironic-python-agent.service "$root/etc/systemd/system/multi-user.target.wants/ironic-python-agent.service"
  in_image_root "$root" systemctl enable systemd-networkd.service systemd-networkd-wait-online.service >/dev/null 2>&1 ||
    { log "enabling systemd-networkd failed"; return 1; }
  echo ironic-python-agent >"$root/etc/hostname"
  # The test rig's name for the host, as the simulator's qemu machines see
  # it (their guest-side address of loopback ports, vm.DefaultGuestHost);
  # the rig's Ironic resolves it to 127.0.0.1 (scripts/ironic.sh vm_conf),
  # so that one image URL works for Ironic's checks and the agent's
  # download. Harmless on real machines, which never use that name.
  printf '127.0.0.1 localhost\n10.0.2.100 baremetal-rig\n' >"$root/etc/hosts"
  : >"$root/etc/machine-id"
  # What a ramdisk does not need.
  rm -rf "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/var/cache/apt/* \
    "$root"/usr/share/locale/[!C]* "$root"/boot/initrd.img*
}

# pack DIR: the kernel, the initramfs and the ISO from DIR/root.
pack() {
  local dir=$1 root=$1/root kernel
  kernel=$(find "$root/boot" -maxdepth 1 -name 'vmlinuz-*' | sort | tail -1)
  [ -n "$kernel" ] || { log "no kernel in $root/boot"; return 1; }
  cp "$kernel" "$dir/ipa.kernel"
  rm -rf "$root"/boot/*
  log "packing the initramfs"
  (cd "$root" && find . -xdev -print0 | cpio --null -o -H newc --quiet) | zstd -q -10 -T0 >"$dir/ipa.initramfs"
  log "making the ISO"
  mkdir -p "$dir/iso/boot/grub"
  cp "$dir/ipa.kernel" "$dir/iso/boot/ipa.kernel"
  cp "$dir/ipa.initramfs" "$dir/iso/boot/ipa.initramfs"
  cat >"$dir/iso/boot/grub/grub.cfg" <<'CFG'
set timeout=1
serial --unit=0 --speed=115200
terminal_input serial console
terminal_output serial console
menuentry "Ironic Python Agent" {
  linux /boot/ipa.kernel console=ttyS0,115200 console=tty0 systemd.journald.forward_to_console=no ipa-debug=1
  initrd /boot/ipa.initramfs
}
CFG
  grub-mkrescue -o "$dir/ipa.iso" "$dir/iso" >"$dir/grub-mkrescue.log" 2>&1 ||
    { log "grub-mkrescue failed:"; tail -20 "$dir/grub-mkrescue.log" >&2; return 1; }
  rm -rf "$dir/iso"
}

# ready DIR: what the built ramdisk holds.
ready() {
  echo "agent $(awk '$1=="ironic-python-agent"{print $2}' "$1/packages.txt"); kernel $(du -h "$1/ipa.kernel" | cut -f1), initramfs $(du -h "$1/ipa.initramfs" | cut -f1), ISO $(du -h "$1/ipa.iso" | cut -f1)"
}

build() { cached_image "$(out)" ipa.iso "the agent's ramdisk (3-7 minutes on 2 cores)"; }

env_() {
  local d
  d=$(out)
  [ -f "$d/ipa.iso" ] || { log "no ramdisk in $d: run scripts/ipa.sh build"; return 1; }
  printf 'IPA_KERNEL=%s\nIPA_RAMDISK=%s\nIPA_ISO=%s\n' "$d/ipa.kernel" "$d/ipa.initramfs" "$d/ipa.iso"
}

case ${1:-} in
  build) build ;;
  env) env_ ;;
  key) key ;;
  *) echo "usage: $0 build|env|key" >&2; exit 2 ;;
esac
