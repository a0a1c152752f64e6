#!/usr/bin/env bash
# A small deployable OS: a whole-disk image of Debian 13 that boots in the
# simulator's VMs (BIOS, virtio disk, serial console) and runs cloud-init
# from the config drive Ironic writes (label config-2): user data and
# network_data.json, rendered for systemd-networkd. It prints its
# addresses on the serial console once the network is configured:
#
#   baremetal-os: <hostname> up; addresses: enp0s2 192.0.2.10/24 ...
#
# so that a test reads them from the VM's console log.
#
#   scripts/osimage.sh build   build (or restore) the image; prints its folder
#   scripts/osimage.sh env     OS_IMAGE=, OS_IMAGE_SHA256= of the cache
#   scripts/osimage.sh key     the cache key (a hash of the recipe)
#
# Built without mounting anything: a debootstrap'd trixie root (the cloud
# kernel flavour, systemd, cloud-init), its /boot on a FAT partition that
# syslinux boots (installed with mtools), the rest an ext4 partition that
# mke2fs fills from the folder; packed as compressed qcow2. Cached outside
# the clone in ${BAREMETAL_TOOLS_CACHE:-~/.cache/terraform-provider-baremetal}/os-<key>/.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/debian.sh
source "$here/scripts/debian.sh"
log() { echo "osimage.sh: $*" >&2; }

suite=trixie
packages="linux-image-cloud-amd64 systemd-sysv udev kmod iproute2 cloud-init ca-certificates"
# Bump when the steps below change.
recipe_version=2

key() {
  printf '%s\n' "$suite" "$packages" "$recipe_version" | sha256sum | cut -c1-12
}

out() { echo "$(cache_dir)/os-$(key)"; }

host_tools() {
  local want=()
  command -v debootstrap >/dev/null || want+=(debootstrap)
  command -v syslinux >/dev/null || want+=(syslinux)
  [ -f /usr/lib/syslinux/mbr/mbr.bin ] || want+=(syslinux-common)
  command -v mcopy >/dev/null || want+=(mtools)
  command -v mkfs.fat >/dev/null || want+=(dosfstools)
  command -v mke2fs >/dev/null || want+=(e2fsprogs)
  command -v sfdisk >/dev/null || want+=(fdisk)
  command -v qemu-img >/dev/null || want+=(qemu-utils)
  host_install "${want[@]}"
}

# build_root DIR: the OS's root in DIR/root.
build_root() {
  local dir=$1 root=$1/root
  # Nothing starts while packages install; dpkg skips fsync.
  image_root "$root" "$suite" "$dir/debootstrap.log" || return 1
  in_image_root "$root" sh -ec '
apt-get -o DPkg::Lock::Timeout=1200 update -qq
apt-get -o DPkg::Lock::Timeout=1200 install -y -qq --no-install-recommends '"$(echo $packages)"'
apt-get clean
rm -rf /var/lib/apt/lists/*' >"$dir/apt.log" 2>&1 ||
    { log "installing the packages failed:"; tail -30 "$dir/apt.log" >&2; return 1; }
  rm -f "$root/usr/sbin/policy-rc.d" "$root/etc/dpkg/dpkg.cfg.d/unsafe-io" "$root/etc/resolv.conf"
  # cloud-init reads the config drive only, and renders network_data.json
  # for systemd-networkd.
  cat >"$root/etc/cloud/cloud.cfg.d/90-baremetal.cfg" <<'CFG'
datasource_list: [ConfigDrive, None]
system_info:
  network:
    renderers: [networkd]
CFG
  # The line a test waits for: addresses, once the network is configured.
  cat >"$root/usr/local/sbin/baremetal-os-report" <<'SH'
#!/bin/sh
addrs=$(ip -o addr show scope global | awk '{printf " %s %s", $2, $4}')
echo "baremetal-os: $(hostname) up; addresses:${addrs:- none}" >/dev/console
SH
  chmod 755 "$root/usr/local/sbin/baremetal-os-report"
  cat >"$root/etc/systemd/system/baremetal-os-report.service" <<'UNIT'
[Unit]
Description=Print the addresses on the console
After=cloud-final.service network-online.target
Wants=network-online.target

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/baremetal-os-report

[Install]
# Not multi-user.target, which cloud-final.service comes after.
WantedBy=cloud-init.target
UNIT
  in_image_root "$root" systemctl enable systemd-networkd.service baremetal-os-report.service >/dev/null 2>&1 ||
    { log "enabling the units failed"; return 1; }
  printf 'LABEL=baremetal-root / ext4 defaults 0 1\n' >"$root/etc/fstab"
  echo baremetal-os >"$root/etc/hostname"
  : >"$root/etc/machine-id"
  rm -rf "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/var/cache/apt/* \
    "$root"/usr/share/locale/[!C]*
}

# pack DIR: DIR/os.qcow2 from DIR/root: an MBR disk with syslinux's boot
# code, a FAT /boot (kernel, initramfs, syslinux) and an ext4 root.
pack() {
  local dir=$1 root=$1/root kernel initrd boot_mib=64 root_mib
  kernel=$(find "$root/boot" -maxdepth 1 -name 'vmlinuz-*' | sort | tail -1)
  initrd=$(find "$root/boot" -maxdepth 1 -name 'initrd.img-*' | sort | tail -1)
  [ -n "$kernel" ] && [ -n "$initrd" ] || { log "no kernel or initramfs in $root/boot"; return 1; }
  cp "$kernel" "$dir/vmlinuz"; cp "$initrd" "$dir/initrd.img"
  rm -rf "$root"/boot/*
  root_mib=$(( $(du -sm "$root" | cut -f1) * 13 / 10 + 64 ))
  log "packing: /boot $boot_mib MiB (FAT), / $root_mib MiB (ext4)"
  rm -f "$dir/boot.fat" "$dir/root.ext4" "$dir/disk.raw"
  mkfs.fat -n BOOT -C "$dir/boot.fat" $((boot_mib * 1024)) >/dev/null
  cat >"$dir/syslinux.cfg" <<'CFG'
SERIAL 0 115200
DEFAULT debian
TIMEOUT 1
LABEL debian
  KERNEL /vmlinuz
  INITRD /initrd.img
  APPEND root=LABEL=baremetal-root ro console=tty0 console=ttyS0,115200
CFG
  mcopy -i "$dir/boot.fat" "$dir/vmlinuz" "$dir/initrd.img" "$dir/syslinux.cfg" ::/
  syslinux --install "$dir/boot.fat"
  mke2fs -q -F -t ext4 -L baremetal-root -d "$root" "$dir/root.ext4" "${root_mib}M"
  truncate -s $((1 + boot_mib + root_mib + 1))M "$dir/disk.raw"
  printf 'label: dos\nstart=1MiB, size=%sMiB, type=c, bootable\nstart=%sMiB, size=%sMiB, type=83\n' \
    "$boot_mib" $((1 + boot_mib)) "$root_mib" | sfdisk -q "$dir/disk.raw"
  dd if=/usr/lib/syslinux/mbr/mbr.bin of="$dir/disk.raw" bs=440 count=1 conv=notrunc status=none
  dd if="$dir/boot.fat" of="$dir/disk.raw" bs=1M seek=1 conv=notrunc,sparse status=none
  dd if="$dir/root.ext4" of="$dir/disk.raw" bs=1M seek=$((1 + boot_mib)) conv=notrunc,sparse status=none
  qemu-img convert -c -O qcow2 "$dir/disk.raw" "$dir/os.qcow2"
  sha256sum "$dir/os.qcow2" | cut -d' ' -f1 >"$dir/os.qcow2.sha256"
  rm -f "$dir/boot.fat" "$dir/root.ext4" "$dir/disk.raw" "$dir/syslinux.cfg"
}

# ready DIR: what the built image is.
ready() {
  echo "os.qcow2 $(du -h "$1/os.qcow2" | cut -f1), cloud-init $(awk '$1=="cloud-init"{print $2}' "$1/packages.txt")"
}

build() { cached_image "$(out)" os.qcow2 "the OS image (about 2 minutes)"; }

env_() {
  local d
  d=$(out)
  [ -f "$d/os.qcow2" ] || { log "no OS image in $d: run scripts/osimage.sh build"; return 1; }
  printf 'OS_IMAGE=%s\nOS_IMAGE_SHA256=%s\n' "$d/os.qcow2" "$(cat "$d/os.qcow2.sha256")"
}

case ${1:-} in
  build) build ;;
  env) env_ ;;
  key) key ;;
  *) echo "usage: $0 build|env|key" >&2; exit 2 ;;
esac
