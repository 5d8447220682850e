#!/bin/sh
# `make bench`, guest side: every method on the same kind of symbols, in one
# boot. Prints one line per measurement:
#   BENCH method=M n=N run=R phase=P ns=T [offset=O] [got=K]
#   BENCH method=M n=N status=over-budget projected_s=S
#   BENCHINFO key=value
# The host (scripts/bench.sh) turns them into tables and a plot.
. /selftests/ktap.sh
T=/sys/kernel/tracing
RUNS=${BP_BENCH_RUNS:-5}
SIZES=${BP_BENCH_SIZES:-"64 256 1024 4096"}
BUDGET_S=${BP_BENCH_BUDGET_S:-60}     # one run of one method at one N
HITS=${BP_BENCH_HITS:-200000}
now() { cut -d' ' -f1 /proc/uptime; }


# +5 skips the ftrace call site, as the seed script does; only about one
# text symbol in six accepts it, so the largest N uses +0 (ftrace-based
# kprobes where the function has an fentry site).
offset_for() { if [ "$1" -gt 1024 ]; then echo 0; else echo 5; fi; }

# Seed script, tracefs side: the first N kallsyms text symbols (no '.')
# that accept a probe at +OFF, one kprobe_events write each.
tracefs_register() {
    n=$1 off=$2
    grep -i " t " /proc/kallsyms | cut -f3 -d" " | grep -v '\.' | {
        k=0
        while read -r s; do
            echo "p ${s}+${off}" >> $T/kprobe_events 2>/dev/null && k=$((k + 1))
            [ "$k" -eq "$n" ] && break
        done
    }
}

tracefs_run() { # method n run
    off=$(offset_for "$2")
    echo > $T/kprobe_events
    ns=$(bptime sh -c ". /selftests/bench.sh --lib; tracefs_register $2 $off")
    got=$(wc -l < $T/kprobe_events)
    echo "BENCH method=$1 n=$2 run=$3 phase=register ns=$ns offset=$off got=$got"
    ns=$(bptime sh -c "echo 1 > $T/events/kprobes/enable")
    echo "BENCH method=$1 n=$2 run=$3 phase=enable ns=$ns"
    sleep 1
    ns=$(bptime sh -c "echo 0 > $T/events/kprobes/enable")
    echo "BENCH method=$1 n=$2 run=$3 phase=disable ns=$ns"
    sleep 1
    ns=$(bptime sh -c "echo > $T/kprobe_events")
    echo "BENCH method=$1 n=$2 run=$3 phase=unregister_complete ns=$ns"
}

bp_run() { # method n run [create options]
    off=$(offset_for "$2")
    bp_ctl "p:b${3} *+${off} max=$2\n" || return 1
    bp_ctl "create b${3} $4\n" || { cat $BP_DEBUGFS/last_error; return 1; }
    got=$(bp_field "b$3" kprobes)
    bp_ctl "enable b$3\n"
    sleep 1
    bp_ctl "disable b$3\n"
    sleep 1
    wall=$(bptime sh -c ". /selftests/ktap.sh; bp_ctl 'unregister b$3\n'")
    bp_ctl "flush\n"
    for p in register enable disable disarm unregister_call unregister_complete; do
        echo "BENCH method=$1 n=$2 run=$3 phase=$p ns=$(bp_timing "b$3" ${p}_ns) offset=$off got=$got"
    done
    echo "BENCH method=$1 n=$2 run=$3 phase=unregister_call_wall ns=$wall"
}

method() { # name runner [create options]
    name=$1 runner=$2 opts=${3:-}
    prev_n=0 prev_s=0
    for n in $SIZES; do
        if [ "$prev_n" -gt 0 ]; then
            projected=$(awk -v s="$prev_s" -v a="$prev_n" -v b="$n" 'BEGIN { printf "%d", s * b / a }')
            if [ "$projected" -gt "$BUDGET_S" ]; then
                echo "BENCH method=$name n=$n status=over-budget projected_s=$projected"
                continue
            fi
        fi
        for r in $(seq 1 "$RUNS"); do
            t0=$(now)
            $runner "$name" "$n" "$r" "$opts"
            t1=$(now)
        done
        prev_n=$n prev_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a + 0.999 }')
    done
}

per_hit() {
    echo "p:hit/getppid __x64_sys_getppid" | bpwrite $BP_DEBUGFS/control
    echo "p:bare/getppid __x64_sys_getppid" | bpwrite $BP_DEBUGFS/control
    for r in $(seq 1 "$RUNS"); do
        echo "BENCH method=no-probe n=1 run=$r phase=per_hit ns=$(bphit $HITS)"
        bp_ctl "create bare --bare\nenable bare\n"
        echo "BENCH method=bare-kprobe n=1 run=$r phase=per_hit ns=$(bphit $HITS)"
        bp_ctl "unregister bare --sync\np:bare/getppid __x64_sys_getppid\n"
        bp_ctl "create hit\nenable hit\n"
        echo "BENCH method=batchprobe n=1 run=$r phase=per_hit ns=$(bphit $HITS)"
        bp_ctl "unregister hit --sync\np:hit/getppid __x64_sys_getppid\n"
    done
}

[ "${1:-}" = --lib ] && return 0

echo "BENCHINFO kernel=$(uname -r)"
echo "BENCHINFO vcpus=$(grep -c ^processor /proc/cpuinfo)"
echo "BENCHINFO runs=$RUNS"
echo "BENCHINFO text_symbols=$(grep -ci ' t ' /proc/kallsyms)"
insmod /batchprobe.ko || exit 1
echo 1 > /proc/sys/debug/kprobes-optimization
method tracefs tracefs_run
echo 0 > /proc/sys/debug/kprobes-optimization
method tracefs-noopt tracefs_run
echo 1 > /proc/sys/debug/kprobes-optimization
method batchprobe bp_run
method batchprobe-one-by-one bp_run --one-by-one
per_hit
rmmod batchprobe
echo "BENCHDONE"
