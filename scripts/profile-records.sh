#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make profile-records`: where one trace record's time goes, as sampled
# instruction pointers (scripts/profile-sample.py), on getppid's event with
# the fetch arguments BP_PROFILE_ARGS (commas for spaces; none by default),
# defined as BP_PROFILE_CFG says: kernel (kprobe_events), bp-kprobe (`p!:`)
# or bp-fprobe (`p:`). Compare a kernel run with a batchprobe run: the
# sums per do_syscall_64 sample are per call. Found the record path's
# extra calls in the sixteenth session (docs/design/events.md). Environment also:
# BP_PROFILE_LOOPS (40, of 200,000 calls), BP_PROFILE_TOP (40),
# BP_KERNEL_FLAVOR (distro-7.3), BP_SMP, BP_TIMEOUT. Under TCG only.
# `make profile-create` (BP_PROFILE_MODE=profile-create): where a set's
# `create; enable` write spends its time instead
# (selftests/guest-profile-create.sh), BP_PROFILE_CFG fprobe, direct or
# exit, on BP_PROFILE_N functions (all), BP_PROFILE_LOOPS writes (3);
# BP_PROFILE_FIRST=1: the first create after insmod instead (the caches it
# fills), no loops; BP_PROFILE_EVENTS=1: an event per line (no
# --no-events); BP_PROFILE_STAGE=1: the staging writes of the lines
# instead of the create.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${BP_PROFILE_MODE:-profile-records}
case $mode in
    profile-records) cfg=${BP_PROFILE_CFG:-bp-kprobe} ;;
    profile-create) cfg=${BP_PROFILE_CFG:-fprobe} ;;
    *) die "profile: BP_PROFILE_MODE is profile-records or profile-create" ;;
esac
kdir=$(KDIR= BP_KERNEL_FLAVOR=${BP_KERNEL_FLAVOR:-distro-7.3} "$BP_ROOT/scripts/build-kernel.sh")
ko=$(KDIR="$kdir" "$BP_ROOT/scripts/build-module.sh")
out=$BP_ROOT/out/$mode/$cfg
mkdir -p "$out"
rm -f "$out/monitor.sock" "$out/samples.txt"
"$BP_ROOT/scripts/build-initramfs.sh" "$out/initramfs.cpio.gz" "$ko" "$kdir"
args="nokaslr bp.mode=$mode bp.bench_CFG=$cfg"
[ -n "${BP_PROFILE_N:-}" ] && args="$args bp.bench_N=$BP_PROFILE_N"
[ -n "${BP_PROFILE_ARGS:-}" ] && args="$args bp.bench_ARGS=${BP_PROFILE_ARGS// /,}"
[ -n "${BP_PROFILE_LOOPS:-}" ] && args="$args bp.bench_LOOPS=$BP_PROFILE_LOOPS"
[ -n "${BP_PROFILE_FIRST:-}" ] && args="$args bp.bench_FIRST=$BP_PROFILE_FIRST"
[ -n "${BP_PROFILE_EVENTS:-}" ] && args="$args bp.bench_EVENTS=$BP_PROFILE_EVENTS"
[ -n "${BP_PROFILE_STAGE:-}" ] && args="$args bp.bench_STAGE=$BP_PROFILE_STAGE"
python3 "$BP_ROOT/scripts/profile-sample.py" sample "$out/monitor.sock" "$out/console.log" \
    "$out/samples.txt" &
sampler=$!
: > "$out/console.log"
set +e
timeout --foreground -k 5 "${BP_TIMEOUT:-900}" qemu-system-x86_64 -accel tcg,thread=single \
    -cpu max -smp "${BP_SMP:-2}" -m 1G -kernel "$kdir/arch/x86/boot/bzImage" \
    -initrd "$out/initramfs.cpio.gz" -no-reboot -display none \
    -monitor "unix:$out/monitor.sock,server,nowait" \
    -chardev "stdio,id=con,logfile=$out/console.log,signal=off" -serial chardev:con \
    -append "console=ttyS0 panic=-1 loglevel=4 $args" </dev/null >/dev/null 2>"$out/qemu-stderr"
rc=$?
set -e
grep -aq PROFILE-END "$out/console.log" || {
    kill "$sampler" 2>/dev/null || true
    die "profile: the guest did not finish (qemu $rc): see $out/console.log"
}
wait "$sampler"
"$BP_ROOT/scripts/check-log.sh" "$out/console.log" "${BP_SMP:-2}" --no-tests >/dev/null \
    || die "profile: kernel splat or wrong CPU count in $out/console.log"
log "profile: $cfg ${BP_PROFILE_ARGS:-(no arguments)}, samples in $out/samples.txt"
python3 "$BP_ROOT/scripts/profile-sample.py" report "$out/samples.txt" "$kdir/System.map" \
    "$out/console.log" "${BP_PROFILE_TOP:-40}"
tr -d '\r' < "$out/console.log" | grep -a -e '^PROFILE functions' -e '^PROFILE-FIRST' -e '^PROFILE-TIME' || true
