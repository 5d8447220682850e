#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: for each kernel flavor, boot it once and run every method side
# by side (selftests/guest-bench.sh); keep each boot's raw lines under
# bench/results/DATE-HHMM-FLAVOR/ (raw.txt, meta.txt), write this run's every
# table to out/bench/BENCHMARKS.md (CSV, JSON and SVG plots in
# out/bench/report; tools/benchreport), and republish BENCHMARKS.md from
# bench/results/ (scripts/bench-publish.sh). docs/benchmarks.md says what
# each part measures.
# Environment: BP_BENCH_FLAVORS ("bench distro distro-7.3": the test kernel
# without lockdep, and the distro-like preemptible, mitigated kernel on 6.12
# and on 7.3; stock-7.3 is Debian's own image as shipped, its modules built
# by scripts/stock-kernel.sh, needs root; `make bench-stock` runs the peers
# and the seed on it), BP_BENCH_RUNS (5),
# BP_BENCH_SIZES ("64 256 1024 4096"), BP_BENCH_BUDGET_S (60: a method skips an
# N whose one run would take longer), BP_BENCH_ENTRY_SIZES ("256 1024 4096 all"),
# BP_BENCH_ONLY=entry (only the +0 entry-probe comparison and per-hit costs),
# BP_BENCH_EXIT_SIZES ("256 1000 all"), BP_BENCH_ONLY=exit (only entry + exit,
# on kernels with BTF), BP_BENCH_PEER_ENTRY_SIZES ("256 1000 4000 all"),
# BP_BENCH_PEER_EXIT_SIZES ("256 1000"), BP_BENCH_PEER_BUDGET_S (300),
# BP_BENCH_PEER_RUNS (3, at every N),
# BP_BENCH_ONLY=percall, peercall (only the per-call costs of entry + exit,
# and of the BPF peers), BP_BENCH_ONLY=peers (only batchprobe against the BPF
# peers), BP_BENCH_ONLY=seed (only the seed's kprobes, tracefs against
# batchprobe, and the direct sets beside them: the first part of the full
# run), several parts in turn ("seed exit"), BP_BENCH_ONLY=records (only the
# cost of a trace record with fetch arguments: batchprobe's events against
# kprobe_events' and fprobe events'), BP_BENCH_ONLY=events (the seed with
# fetch arguments on every probe, BP_BENCH_SEED_ARGS_SIZES ("256 1024") x
# BP_BENCH_SEED_ARGS_RUNS (3), and what a set's events cost at create and
# teardown, BP_BENCH_EVENT_SIZES ("256 4096 all") x BP_BENCH_EVENT_RUNS (3)),
# BP_BENCH_ONLY=modules (a module's functions, ext4's on Debian's image: one
# p: line over the module against one kprobe_multi link, int3 kprobes and
# direct calls; BP_BENCH_MOD_RUNS (3)),
# BP_BENCH_NOTE (a sentence kept with the results and printed under the
# run's heading: what else ran on the host meanwhile), BP_JOBS (boots at
# once: one per host core under single-threaded TCG), plus
# run-qemu.sh's BP_SMP, BP_ACCEL, BP_TCG_THREAD, BP_TIMEOUT.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$BP_ROOT/scripts/install-deps.sh"
flavors=${BP_BENCH_FLAVORS:-bench distro distro-7.3}
# The tree the guests run, said before anything is built from it.
commit=$(git -C "$BP_ROOT" describe --always --dirty)
# Raw data of flavors not run this time must not reach the report.
for d in "$BP_ROOT"/out/bench/*/; do
    case " $flavors " in *" $(basename "$d") "*) ;; *) rm -f "$d/raw.txt" ;; esac
done
# Every flavor's module and initramfs first (one tree: each module build
# replaces the last one's .ko, so its initramfs is packed right after it),
# then the boots, side by side as make check boots its guests (guest_jobs
# in lib.sh: one per host core under single-threaded TCG; BP_JOBS). Every
# ratio is within one boot, so a boot beside another changes absolute
# times, not what the report compares.
declare -A kdirs images
for f in $flavors; do
    mkdir -p "$BP_ROOT/out/bench/$f"
    if [ "$(flavor_base "$f")" = stock ]; then
        # Debian's vmlinuz, with our initramfs of modules built in its
        # chroot (as make check boots it).
        images[$f]=$("$BP_ROOT/scripts/stock-kernel.sh" initramfs "$BP_ROOT/out/bench/$f/initramfs.cpio.gz")
        continue
    fi
    kdirs[$f]=$(KDIR= BP_KERNEL_FLAVOR=$f "$BP_ROOT/scripts/build-kernel.sh")
    images[$f]=${kdirs[$f]}/arch/x86/boot/bzImage
    ko=$(KDIR="${kdirs[$f]}" "$BP_ROOT/scripts/build-module.sh")
    # The C sample client: the exit benchmark's API way (exit-api).
    clients=$(KDIR="${kdirs[$f]}" "$BP_ROOT/scripts/build-clients.sh")
    BP_EXTRA_KO="$clients" "$BP_ROOT/scripts/build-initramfs.sh" "$BP_ROOT/out/bench/$f/initramfs.cpio.gz" "$ko" "${kdirs[$f]}"
done
args=bp.mode=bench
for v in RUNS HITS SIZES BUDGET_S DIRECT_SIZES DIRECT_RUNS BIG_RUNS ENTRY_SIZES EXIT_SIZES PEER_ENTRY_SIZES PEER_EXIT_SIZES PEER_BUDGET_S PEER_RUNS SEED_ARGS_SIZES SEED_ARGS_RUNS EVENT_SIZES EVENT_RUNS ONLY; do
    eval "val=\${BP_BENCH_$v:-}"
    [ -n "$val" ] && args="$args bp.bench_$v=${val// /,}"
done
smp=${BP_SMP:-2}
jobs=$(guest_jobs "$smp" "${BP_ACCEL:-tcg}")
boot() {
    local f=$1 out=$BP_ROOT/out/bench/$1 t=$(date +%s)
    # A full boot ran 1554 s (bench) and 1828 s (distro) here on 2026-12-01,
    # the two side by side under TCG: the hang guard leaves room for a
    # slower host.
    log "bench ($f kernel): booting the guest (${BP_ACCEL:-tcg} ${BP_TCG_THREAD:-single}, $smp vCPUs); console log: $out/console.log"
    BP_QUIET=1 BP_SMP=$smp BP_TIMEOUT=${BP_TIMEOUT:-3600} "$BP_ROOT/scripts/run-qemu.sh" \
        "${images[$f]}" "$out/initramfs.cpio.gz" "$out/console.log" $args || true
    log "bench ($f kernel): guest done in $(( $(date +%s) - t )) s"
}
log "bench: $(wc -w <<<"$flavors") boots, $jobs at a time: $flavors"
run_at_most "$jobs" boot $flavors
for f in $flavors; do
    out=$BP_ROOT/out/bench/$f
    logf=$out/console.log
    grep -aq '^BENCHDONE' "$logf" || die "bench ($f): the guest did not finish (see $logf)"
    "$BP_ROOT/scripts/check-log.sh" "$logf" "$smp" --no-tests >/dev/null \
        || die "bench ($f): kernel splat or wrong CPU count in $logf"
    tr -d '\r' < "$logf" | grep -a '^BENCH' > "$out/raw.txt"
done
# Whether the boots shared the host, said with the run and in its report.
nflavors=$(wc -w <<<"$flavors")
side_by_side=
if [ "$jobs" -gt 1 ] && [ "$nflavors" -gt 1 ]; then
    side_by_side="The boots ran side by side, up to $jobs at a time on a $(nproc)-CPU host (BP_JOBS): compare methods within a boot, not one boot's absolute times with another's."
fi
# How the boots ran, for the report (the bundle's `./run bench` writes the
# same file next to its raw data).
stamp=$(date -u +%Y-%m-%d-%H%M)
{
    echo "date=${stamp%-*}"
    echo "accel=${BP_ACCEL:-tcg}"
    echo "tcg_thread=${BP_TCG_THREAD:-single}"
    echo "vcpus=${BP_SMP:-2}"
    echo "host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
    echo "host_cpus=$(nproc)"
    echo "flavors=$flavors"
    echo "boots_at_once=$((jobs < nflavors ? jobs : nflavors))"
    echo "commit=$commit"
    echo "parts=${BP_BENCH_ONLY:-all}"
    echo "guest_args=$args"
    # What else ran on the host meanwhile, said by whoever ran it
    # (BP_BENCH_NOTE), and whether boots shared it: printed with the run.
    note="${BP_BENCH_NOTE:-}${BP_BENCH_NOTE:+${side_by_side:+ }}$side_by_side"
    [ -z "$note" ] || echo "note=$note"
} > "$BP_ROOT/out/bench/meta.txt"
# Each flavor's raw data, kept (committed) under bench/results/DATE-HHMM-FLAVOR/
# with how it was measured: what BENCHMARKS.md is made from.
for f in $flavors; do
    dir=$BP_ROOT/bench/results/$stamp-$f
    mkdir -p "$dir"
    cp "$BP_ROOT/out/bench/$f/raw.txt" "$dir/raw.txt"
    { cat "$BP_ROOT/out/bench/meta.txt"; echo "flavor=$f"; } > "$dir/meta.txt"
    log "bench: $dir"
done
# Say under the report's title how the boots shared the host.
export BP_REPORT_NOTE=${BP_REPORT_NOTE:-$side_by_side}
# This run's every table, in out/bench/BENCHMARKS.md (not committed); then
# BENCHMARKS.md, republished from everything under bench/results/.
export BP_REPORT_MD=$BP_ROOT/out/bench/BENCHMARKS.md BP_REPORT_SVG_DIR=$BP_ROOT/out/bench/report
"$BP_ROOT/scripts/bench-report.sh" "$BP_ROOT/out/bench"
"$BP_ROOT/scripts/bench-publish.sh"
