#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`: set everything up, boot the guest and show batchprobe working.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$BP_ROOT/scripts/install-deps.sh"
kdir=$(KDIR= "$BP_ROOT/scripts/build-kernel.sh")
ko=$(KDIR="$kdir" "$BP_ROOT/scripts/build-module.sh")
mkdir -p "$BP_ROOT/out"
initrd=$BP_ROOT/out/initramfs-demo.cpio.gz
"$BP_ROOT/scripts/build-initramfs.sh" "$initrd" "$ko" "$kdir"
logf=$BP_ROOT/out/demo-console.log
log "booting the guest (${BP_ACCEL:-tcg}); console log: $logf"
BP_QUIET=1 BP_TIMEOUT=${BP_TIMEOUT:-600} "$BP_ROOT/scripts/run-qemu.sh" \
    "$kdir/arch/x86/boot/bzImage" "$initrd" "$logf" bp.mode=demo
# Show what the guest's demo script printed: not the boot log, not the
# markers, not a kernel message that still reached the console.
tr -d '\r' < "$logf" | sed -n '/BATCHPROBE-GUEST-START/,/BATCHPROBE-GUEST-DONE/p' \
    | grep -av -e '^BATCHPROBE-GUEST-' -e '^\[ *[0-9]*\.[0-9]*\] '
grep -aq 'BATCHPROBE-GUEST-DONE rc=0' "$logf" || die "demo failed (see $logf)"
