#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make bench`, guest side (bp.mode=bench): runs the methods of bench_lib.sh
# in one boot, after BENCHINFO key=value lines that say what they ran on,
# and ends with the kernel log and BENCHDONE. The host (scripts/bench.sh)
# turns the lines into tables and a plot.
#
# BP_BENCH_ONLY picks a part: entry (the entry-probe comparison and the
# per-hit costs), exit (entry + exit, on a kernel with BTF), percall (only
# entry + exit's per-call costs), peers (only the BPF peers), peercall
# (only the BPF peers' per-call costs), records
# (only the cost of a trace record with fetch arguments), events (the seed
# with fetch arguments, and what a set's events cost at create and
# teardown); unset: all.
. ./bench_lib.sh

bench_info() {
    echo "BENCHINFO kernel=$(uname -r)"
    echo "BENCHINFO vcpus=$(grep -c ^processor /proc/cpuinfo)"
    echo "BENCHINFO runs=$RUNS"
    echo "BENCHINFO direct_runs=$DIRECT_RUNS"
    echo "BENCHINFO big_runs=$BIG_RUNS"
    echo "BENCHINFO budget_s=$BUDGET_S"
    echo "BENCHINFO peer_budget_s=$PEER_BUDGET_S"
    echo "BENCHINFO peer_runs=$PEER_RUNS"
    echo "BENCHINFO mod_runs=$MOD_RUNS"
    echo "BENCHINFO text_symbols=$(grep -ci ' t ' /proc/kallsyms)"
    echo "BENCHINFO ftrace_functions=$(wc -l < $T/available_filter_functions)"
    if [ -e /proc/lockdep ]; then echo "BENCHINFO lockdep=on"; else echo "BENCHINFO lockdep=off"; fi
}

# The seed's comparison: tracefs against batchprobe's ways, kprobes at
# +5/+9, then direct calls and their baselines.
bench_seed() {
    echo 1 > /proc/sys/debug/kprobes-optimization
    method tracefs tracefs_run
    echo 0 > /proc/sys/debug/kprobes-optimization
    method tracefs-noopt tracefs_run
    echo 1 > /proc/sys/debug/kprobes-optimization
    method batchprobe bp_run
    method batchprobe-noopt bp_run --noopt
    method batchprobe-one-by-one bp_run --one-by-one
    direct_vs_fprobe
    # One run each, with room for N = 1000: its detach alone is ~2 min here.
    method direct-ops-per-function direct_run --one-by-one "$DIRECT_SIZES" 1 150
}

# Entry + exit, where the kernel has the BTF the exit trampoline needs.
bench_exit() {
    [ -r /sys/kernel/btf/vmlinux ] || { echo "BENCHINFO exit=skipped (no BTF: the exit trampoline needs it)"; return 0; }
    exit_probes
    per_call_exit
}

bench_all() {
    bench_seed
    entry_probes
    per_hit
    per_record
    seed_args
    events_cost
    per_hit_direct
    per_hit_offset
    bench_exit
    peers
    module_peers
}

bench_info
DIRECT_SIZES=$(echo "$DIRECT_SIZES" | sed "s/all/$(wc -l < $T/available_filter_functions)/")
# Kernel messages on the console would land in the middle of BENCH lines
# (the serial console is shared): keep all but emergencies and alerts (an
# oops still shows at once) off it until the end, then print the whole
# kernel log, where the host looks for warnings and splats.
dmesg -n 2
insmod "$BP_KO" || exit 1
# BP_BENCH_ONLY: one part, or several in turn ("seed exit").
for only in ${BP_BENCH_ONLY:-all}; do
    case "$only" in
        peers) peers ;;
        modules) module_peers ;;
        exit) exit_probes; per_call_exit ;;
        percall) per_call_exit ;;
        peercall) [ -x ./bpfpeer ] && [ -r /sys/kernel/btf/vmlinux ] && peer_per_call ;;
        entry) entry_probes; per_hit ;;
        records) per_record ;;
        events) seed_args; events_cost ;;
        seed) bench_seed ;;
        *) bench_all ;;
    esac
done
rmmod batchprobe
dmesg -n 7
dmesg
echo "BENCHDONE"
