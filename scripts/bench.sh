#!/usr/bin/env bash
# `make bench`: for each kernel flavor, boot it once and run every method side
# by side (selftests/bench.sh); then turn the measurements of all flavors into
# one report: a side-by-side table, per-flavor Markdown tables, CSV, JSON and
# SVG plots (tools/benchreport), and refresh BENCHMARKS.md.
# Environment: BP_BENCH_FLAVORS ("bench distro": the test kernel without
# lockdep, and the distro-like preemptible, mitigated kernel), BP_BENCH_RUNS (5),
# BP_BENCH_SIZES ("64 256 1024 4096"), BP_BENCH_BUDGET_S (60: a method skips an
# N whose one run would take longer), BP_BENCH_ENTRY_SIZES ("256 1024 4096 all"),
# BP_BENCH_ONLY=entry (only the +0 entry-probe comparison and per-hit costs,
# reported in BENCHMARKS-entry.md), BP_BENCH_EXIT_SIZES ("256 1000 all"),
# BP_BENCH_ONLY=exit (only entry + exit, on kernels with BTF: the distro
# flavor; BENCHMARKS-exit.md), BP_BENCH_REPORT (below), plus run-qemu.sh's BP_SMP, BP_ACCEL,
# BP_TCG_THREAD, BP_TIMEOUT.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$BP_ROOT/scripts/install-deps.sh"
flavors=${BP_BENCH_FLAVORS:-bench distro}
# Raw data of flavors not run this time must not reach the report.
for d in "$BP_ROOT"/out/bench/*/; do
    case " $flavors " in *" $(basename "$d") "*) ;; *) rm -f "$d/raw.txt" ;; esac
done
for f in $flavors; do
    kdir=$(KDIR= BP_KERNEL_FLAVOR=$f "$BP_ROOT/scripts/build-kernel.sh")
    ko=$(KDIR="$kdir" "$BP_ROOT/scripts/build-module.sh")
    out=$BP_ROOT/out/bench/$f
    mkdir -p "$out"
    "$BP_ROOT/scripts/build-initramfs.sh" "$out/initramfs.cpio.gz" "$ko" "$kdir"
    logf=$out/console.log
    args=bp.mode=bench
    for v in RUNS SIZES BUDGET_S DIRECT_SIZES DIRECT_RUNS BIG_RUNS ENTRY_SIZES EXIT_SIZES ONLY; do
        eval "val=\${BP_BENCH_$v:-}"
        [ -n "$val" ] && args="$args bp.bench_$v=${val// /,}"
    done
    # A full boot ran 1554 s (bench) and 1828 s (distro) here on 2026-12-01,
    # the two side by side under TCG: the hang guard leaves room for a slower
    # host.
    log "bench ($f kernel): booting the guest (${BP_ACCEL:-tcg} ${BP_TCG_THREAD:-single}, ${BP_SMP:-2} vCPUs); console log: $logf"
    BP_QUIET=1 BP_TIMEOUT=${BP_TIMEOUT:-3600} "$BP_ROOT/scripts/run-qemu.sh" \
        "$kdir/arch/x86/boot/bzImage" "$out/initramfs.cpio.gz" "$logf" $args || true
    grep -aq '^BENCHDONE' "$logf" || die "bench ($f): the guest did not finish (see $logf)"
    "$BP_ROOT/scripts/check-log.sh" "$logf" "${BP_SMP:-2}" --no-tests >/dev/null \
        || die "bench ($f): kernel splat or wrong CPU count in $logf"
    tr -d '\r' < "$logf" | grep -a '^BENCH' > "$out/raw.txt"
done
# How the boots ran, for the report (the bundle's `./run bench` writes the
# same file next to its raw data).
{
    echo "date=$(date -u +%Y-%m-%d)"
    echo "accel=${BP_ACCEL:-tcg}"
    echo "tcg_thread=${BP_TCG_THREAD:-single}"
    echo "vcpus=${BP_SMP:-2}"
    echo "host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
    echo "host_cpus=$(nproc)"
    echo "flavors=$flavors"
} > "$BP_ROOT/out/bench/meta.txt"
# A partial run (BP_BENCH_ONLY) has its own report and keeps its plots in
# out/: it must not replace the full one's.
# BP_BENCH_REPORT=NAME writes BENCHMARKS-NAME.md instead (a run of other
# flavors than the full one's, say distro and distro-7.3).
if [ -n "${BP_BENCH_REPORT:-}" ]; then
    export BP_REPORT_MD=$BP_ROOT/BENCHMARKS-$BP_BENCH_REPORT.md BP_REPORT_SVG_DIR=$BP_ROOT/out/bench
elif [ -n "${BP_BENCH_ONLY:-}" ]; then
    export BP_REPORT_MD=$BP_ROOT/BENCHMARKS-$BP_BENCH_ONLY.md BP_REPORT_SVG_DIR=$BP_ROOT/out/bench
else
    export BP_REPORT_MD=$BP_ROOT/BENCHMARKS.md BP_REPORT_SVG_DIR=$BP_ROOT/docs
fi
"$BP_ROOT/scripts/bench-report.sh" "$BP_ROOT/out/bench"
