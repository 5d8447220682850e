#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make bundle`: one self-contained archive that runs batchprobe's guest
# modes (check, demo, bench) on any x86-64 Linux host with nothing installed:
#   run                 the runner (scripts/bundle-run.sh): ./run check|demo|bench
#   check-log.sh        judges a console log as make check does
#   bin/busybox         static; bin/tools/ holds its applet links (the shell tools)
#   qemu/bin, qemu/lib  QEMU, its dynamic loader and every library it loads
#   qemu/modules        QEMU's TCG accelerator module (Debian builds it as one)
#   qemu/share          the firmware a -kernel boot of the pc machine reads
#   kernels/FLAVOR/     bzImage, initramfs.cpio.gz (module, sample clients,
#                       the kselftest tree), the kernel's .config
# Environment: BP_BUNDLE_FLAVORS ("test distro debug bench": make check's
# flavors and make bench's), BP_BUNDLE_OUT (out/batchprobe-bundle.tar.gz).
# Prints the archive's path. The archive must stay under 60 MiB.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavors=${BP_BUNDLE_FLAVORS:-test distro debug bench}
archive=${BP_BUNDLE_OUT:-$BP_ROOT/out/batchprobe-bundle.tar.gz}
limit=$((60 * 1024 * 1024))

"$BP_ROOT/scripts/install-deps.sh"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
b=$stage/batchprobe-bundle
mkdir -p "$b"/{bin/tools,qemu/bin,qemu/lib,qemu/modules,qemu/share,kernels}

for f in $flavors; do
    kdir=$(KDIR= BP_KERNEL_FLAVOR=$f "$BP_ROOT/scripts/build-kernel.sh")
    ko=$(KDIR="$kdir" "$BP_ROOT/scripts/build-module.sh")
    clients=$(KDIR="$kdir" "$BP_ROOT/scripts/build-clients.sh")
    mkdir -p "$b/kernels/$f"
    cp "$kdir/arch/x86/boot/bzImage" "$kdir/.config" "$b/kernels/$f/"
    BP_EXTRA_KO="$clients" "$BP_ROOT/scripts/build-initramfs.sh" "$b/kernels/$f/initramfs.cpio.gz" "$ko" "$kdir"
    log "bundle: $f kernel and initramfs added"
done

# QEMU and everything it loads. Debian's QEMU keeps TCG in a module
# (accel-tcg-x86_64.so), found through QEMU_MODULE_DIR.
qemu=$(command -v qemu-system-x86_64) || die "bundle: qemu-system-x86_64 missing (run scripts/install-deps.sh)"
moddir=/usr/lib/x86_64-linux-gnu/qemu
cp "$qemu" "$b/qemu/bin/"
cp "$moddir/accel-tcg-x86_64.so" "$b/qemu/modules/"
for obj in "$qemu" "$moddir/accel-tcg-x86_64.so"; do
    ldd "$obj" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
done | sort -u | while read -r lib; do
    case $lib in
        */ld-linux-x86-64.so.2) cp -L "$lib" "$b/qemu/lib/ld-linux-x86-64.so.2" ;;
        *) cp -L "$lib" "$b/qemu/lib/" ;;
    esac
done
[ -f "$b/qemu/lib/ld-linux-x86-64.so.2" ] || die "bundle: QEMU's dynamic loader not found by ldd"
# The firmware a `-kernel` boot of the default pc machine reads (with -vga
# none -nic none): SeaBIOS, the option ROM that loads the kernel, the kvm
# vapic ROM.
for fw in bios-256k.bin linuxboot_dma.bin kvmvapic.bin; do
    src=$(find -L /usr/share/qemu /usr/share/seabios -maxdepth 1 -name "$fw" 2>/dev/null | head -1)
    [ -n "$src" ] || die "bundle: QEMU firmware $fw not found"
    cp -L "$src" "$b/qemu/share/"
done

# busybox: the runner's shell and every tool it calls.
busybox=/bin/busybox
file -L "$busybox" 2>/dev/null | grep -q static || busybox=/usr/bin/busybox
cp "$busybox" "$b/bin/busybox"
for applet in $("$b/bin/busybox" --list); do ln -s ../busybox "$b/bin/tools/$applet"; done
cp "$BP_ROOT/scripts/bundle-run.sh" "$b/run"
cp "$BP_ROOT/scripts/check-log.sh" "$b/check-log.sh"
chmod +x "$b/run" "$b/check-log.sh"
{
    echo "batchprobe bundle, built $(date -u +%Y-%m-%d) from $(git -C "$BP_ROOT" describe --always --dirty 2>/dev/null || echo unknown)"
    echo "kernel flavors: $flavors"
    echo "$("$qemu" --version | head -1)"
    echo
    sed -n '3,20s/^# \{0,1\}//p' "$BP_ROOT/scripts/bundle-run.sh"
} > "$b/README"

mkdir -p "$(dirname "$archive")"
tar -C "$stage" -czf "$archive.tmp" batchprobe-bundle
size=$(stat -c %s "$archive.tmp")
mv "$archive.tmp" "$archive"
log "bundle: $archive, $((size / 1024 / 1024)) MiB ($size bytes)"
[ "$size" -le "$limit" ] || die "bundle: $archive is over 60 MiB"
echo "$archive"
