#!/bin/bash
# Times the README's demo command on a bare Debian 12: a fresh `debootstrap --variant=minbase`
# system with nothing but this checkout copied in, where `bash tools/demo.sh` installs the packages,
# configures, builds (ccache empty) and runs the demo.  Prints the wall time of that command.
#   sudo bash tools/bare_machine_demo.sh [ROOT]    ROOT: where the system is made (default /tmp/mmp-bare;
#                                                  removed first)
# Needs root, debootstrap (installed if missing) and Debian's archive: MMP_DEBIAN_MIRROR (default
# http://deb.debian.org/debian).  The log of the timed command is ROOT.log.
set -euo pipefail
root="${1:-/tmp/mmp-bare}"
mirror="${MMP_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ "$(id -u)" -eq 0 ] || { echo "bare_machine_demo.sh: run as root (debootstrap and chroot need it)" >&2; exit 1; }
command -v debootstrap > /dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap > /dev/null; }

rm -rf "$root"
echo "making a bare Debian 12 in $root (debootstrap minbase, not timed)"
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.debootstrap.log" 2>&1
echo "deb $mirror bookworm main" > "$root/etc/apt/sources.list"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/root/mmp"
git -C "$source_dir" archive HEAD | tar -x -C "$root/root/mmp"   # the committed tree, as a clone has it
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
trap 'umount "$root/proc" "$root/sys" "$root/dev"' EXIT

echo "timing 'bash tools/demo.sh' there (packages, build, demo); log: $root.log"
start=$(date +%s)
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  bash -c 'cd /root/mmp && bash tools/demo.sh' > "$root.log" 2>&1
end=$(date +%s)
echo "bare Debian 12, $(nproc) cores: packages, build and demo took $((end - start)) s"
