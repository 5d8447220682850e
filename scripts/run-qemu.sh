#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot the test kernel with an initramfs under QEMU and keep the whole console
# log. Usage: run-qemu.sh BZIMAGE INITRAMFS LOG [extra kernel args...]
# Environment: BP_SMP (2), BP_MEM (1G), BP_TIMEOUT seconds (600),
# BP_ACCEL=tcg|kvm (tcg: KVM hangs a stock kernel on this host's hypervisor),
# BP_TCG_THREAD=single|multi (single: see below), BP_QUIET=1 to keep the
# console off stdout.
#
# TCG runs the vCPUs in one host thread by default. With one thread per vCPU
# (multi), a vCPU here sometimes executes an int3 that the kernel's text
# patching (text_poke_bp_batch) had already replaced, between batches, and
# the guest dies with "Oops: int3": selftests/guest-stress-direct.sh (attach and
# detach 4000 functions, over and over) crashed so at cycle 50 and 80 of two
# multi runs, while single runs did 150 and 200 cycles clean. Kernel text
# patching is exactly what batchprobe does in bulk.
# Exits 124 on timeout, else QEMU's status.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=$1 initrd=$2 logf=$3
shift 3
smp=${BP_SMP:-2} mem=${BP_MEM:-1G} timeout_s=${BP_TIMEOUT:-600} accel=${BP_ACCEL:-tcg}
thread=${BP_TCG_THREAD:-single}
case "$thread" in single|multi) ;; *) die "qemu: BP_TCG_THREAD must be single or multi" ;; esac
case "$accel" in
    tcg) accel_args=(-accel "tcg,thread=$thread" -cpu max) ;;
    kvm) accel_args=(-accel kvm -cpu host) ;;
    *) die "qemu: BP_ACCEL must be tcg or kvm" ;;
esac
: > "$logf"
cmd=(qemu-system-x86_64 "${accel_args[@]}" -smp "$smp" -m "$mem"
     -kernel "$kernel" -initrd "$initrd" -no-reboot -display none -monitor none
     -chardev "stdio,id=con,logfile=$logf,signal=off" -serial chardev:con
     -append "console=ttyS0 panic=-1 loglevel=7 $*")
set +e
if [ "${BP_QUIET:-0}" = 1 ]; then
    timeout --foreground -k 5 "$timeout_s" "${cmd[@]}" </dev/null >/dev/null 2>"$logf.qemu-stderr"
else
    timeout --foreground -k 5 "$timeout_s" "${cmd[@]}" </dev/null 2>"$logf.qemu-stderr"
fi
rc=$?
set -e
[ "$rc" -eq 124 ] && log "qemu: guest still running after ${timeout_s}s: killed (timeout)"
exit "$rc"
