#!/usr/bin/env bash
# `make bench`: boot the bench kernel once, run every method side by side
# (selftests/bench.sh), then turn the measurements into a Markdown table,
# CSV, JSON and an SVG plot (tools/benchreport), and refresh BENCHMARKS.md.
# Environment: BP_BENCH_RUNS (5), BP_BENCH_SIZES ("64 256 1024 4096"),
# BP_BENCH_BUDGET_S (60: a method skips an N whose one run would take longer),
# BP_KERNEL_FLAVOR (bench; test for the lockdep test kernel),
# plus run-qemu.sh's BP_SMP, BP_ACCEL, BP_TCG_THREAD, BP_TIMEOUT.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$BP_ROOT/scripts/install-deps.sh"
# Timings come from the bench kernel (the test kernel without lockdep) unless
# BP_KERNEL_FLAVOR=test.
kdir=$(KDIR= BP_KERNEL_FLAVOR=${BP_KERNEL_FLAVOR:-bench} "$BP_ROOT/scripts/build-kernel.sh")
ko=$(KDIR="$kdir" "$BP_ROOT/scripts/build-module.sh")
out=$BP_ROOT/out/bench
mkdir -p "$out"
"$BP_ROOT/scripts/build-initramfs.sh" "$out/initramfs.cpio.gz" "$ko"
logf=$out/console.log
args=bp.mode=bench
for v in RUNS SIZES BUDGET_S DIRECT_SIZES DIRECT_RUNS BIG_RUNS; do
    eval "val=\${BP_BENCH_$v:-}"
    [ -n "$val" ] && args="$args bp.bench_$v=${val// /,}"
done
log "bench: booting the guest (${BP_ACCEL:-tcg} ${BP_TCG_THREAD:-single}, ${BP_SMP:-2} vCPUs); console log: $logf"
BP_QUIET=1 BP_TIMEOUT=${BP_TIMEOUT:-1500} "$BP_ROOT/scripts/run-qemu.sh" \
    "$kdir/arch/x86/boot/bzImage" "$out/initramfs.cpio.gz" "$logf" $args
grep -aq '^BENCHDONE' "$logf" || die "bench: the guest did not finish (see $logf)"
"$BP_ROOT/scripts/check-log.sh" "$logf" "${BP_SMP:-2}" --no-tests >/dev/null \
    || die "bench: kernel splat or wrong CPU count in $logf"
tr -d '\r' < "$logf" | grep -a '^BENCH' > "$out/raw.txt"
accel=${BP_ACCEL:-tcg}
[ "$accel" = tcg ] && accel="tcg thread=${BP_TCG_THREAD:-single}"
(cd "$BP_ROOT/tools/benchreport" && cargo run --quiet --release -- \
    --input "$out/raw.txt" --out-dir "$out" --accel "$accel" --date "$(date -u +%Y-%m-%d)" \
    --markdown "$BP_ROOT/BENCHMARKS.md" --svg-dir "$BP_ROOT/docs")
