#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make profile-direct`: where a direct set's attach spends its time, on the
# bench kernel (selftests/guest-profile-direct.sh does the work in the guest).
# Environment: BP_PROFILE_N (1000), BP_PROFILE_RUNS (3),
# BP_PROFILE_OPTS ("--one-ops --fprobe"; also --one-by-one),
# BP_PROFILE_FUNCS ("text_poke_bp_batch": kernel functions to time),
# BP_KERNEL_FLAVOR (bench), plus run-qemu.sh's BP_SMP, BP_ACCEL, BP_TCG_THREAD,
# BP_TIMEOUT.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kdir=$(KDIR= BP_KERNEL_FLAVOR=${BP_KERNEL_FLAVOR:-bench} "$BP_ROOT/scripts/build-kernel.sh")
ko=$(KDIR="$kdir" "$BP_ROOT/scripts/build-module.sh")
out=$BP_ROOT/out/profile
mkdir -p "$out"
"$BP_ROOT/scripts/build-initramfs.sh" "$out/initramfs.cpio.gz" "$ko" "$kdir"
args=bp.mode=profile-direct
for v in N RUNS OPTS FUNCS; do
    eval "val=\${BP_PROFILE_$v:-}"
    [ -n "$val" ] && args="$args bp.bench_$v=${val// /,}"
done
BP_QUIET=1 "$BP_ROOT/scripts/run-qemu.sh" \
    "$kdir/arch/x86/boot/bzImage" "$out/initramfs.cpio.gz" "$out/console.log" $args
"$BP_ROOT/scripts/check-log.sh" "$out/console.log" "${BP_SMP:-2}" --no-tests >/dev/null \
    || die "profile: kernel splat or wrong CPU count in $out/console.log"
tr -d '\r' < "$out/console.log" | grep -a '^PROFILE'
