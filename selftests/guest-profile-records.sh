#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Where a trace record's time goes (`make profile-records`; guest side,
# bp.mode=profile-records, parameters bp.bench_CFG and bp.bench_ARGS).
# Defines one event on getppid's syscall entry with the fetch arguments
# ARGS (commas for spaces): CFG kernel (kprobe_events), bp-kprobe (`p!:`)
# or bp-fprobe (`p:`); enables it, prints the module's symbols (the host
# maps sampled addresses with them, the trampolines', and System.map: the guest boots with
# nokaslr), then calls getppid() in a loop between PROFILE-START and
# PROFILE-END while the host samples the vCPUs' instruction pointers.
. ./bp_lib.sh
T=/sys/kernel/tracing
CFG=${BP_BENCH_CFG:-bp-kprobe}
ARGS=${BP_BENCH_ARGS:-}
S=$BP_GETPPID
insmod "$BP_KO" || exit 1
echo 1 > $T/tracing_on
case "$CFG" in
    kernel) printf '%s\n' "p:bkr/rec $S $ARGS" >> $T/kprobe_events || exit 1
            echo 1 > $T/events/bkr/rec/enable ;;
    bp-kprobe|bp-fprobe)
            p=p; [ "$CFG" = bp-kprobe ] && p='p!'
            printf '%s\n' "$p:brec/rec $S $ARGS" "create brec --events" "enable brec" |
                bpwrite $BP_DEBUGFS/control || { cat $BP_DEBUGFS/last_error; exit 1; }
            echo 1 > $T/events/brec/rec/enable ;;
    *) echo "PROFILE unknown bp.bench_CFG=$CFG"; exit 1 ;;
esac
# The module's symbols, and ftrace's and kprobes' trampolines and slots.
grep -e '\[batchprobe\]' -e '\[__builtin__' /proc/kallsyms | sed 's/^/PROFILE-SYM /'
bphit 100000 > /dev/null
echo PROFILE-START
for i in $(seq 1 "${BP_BENCH_LOOPS:-40}"); do bphit 200000 > /dev/null; done
echo PROFILE-END
