#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: perf_event_open of a set's event counts and samples its probe's hits as perf does a kprobe_events event's
# requires: CONFIG_KPROBE_EVENTS
#
# The kernel is the oracle. bpperf (selftests/bptool.c) opens a trace
# event's id with perf_event_open(2) for itself, a sample per hit with the
# raw record, calls getppid() ten times, and prints what perf counted, the
# samples it got, the first sample's probe address (__probe_ip, or
# __probe_func for a return) and its raw record past the common fields. For kprobe_events' p: and r: on getppid (each
# alone), then for a set's events on the same lines (p: by the fprobe, p!:
# by a kprobe, r: by the return fprobe, r!: by a kretprobe), the three must
# be the same; and for a line with fetch arguments, through the fprobe
# and a kprobe, and a d: line's entry records, the raw records too. A
# set's event counts only while the set is enabled: perf
# arms nothing (the set's enable does), unlike a kprobe event.
. ./bp_lib.sh
ktap_plan 16
T=/sys/kernel/tracing
S=$BP_GETPPID

# The kernel's, one event at a time.
perf_kernel() {
    case $1 in *" "*) printf "%s\n" "$1" ;; *) printf "%s\n" "$1 $S" ;; esac >> $T/kprobe_events
    bpperf "$(cat $T/events/kpo/$2/id)" 10
    echo > $T/kprobe_events
}
kp=$(perf_kernel p:kpo/getppid getppid)
kr=$(perf_kernel r:kpo/getppid_r getppid_r)
# With fetch arguments: a constant, the task's name, the return address.
ARGS='a=\0x1234:x64 c=$comm:string s=+0($stack):x64'
ka=$(perf_kernel "p:kpo/getppid_a $S $ARGS" getppid_a)
echo "# kprobe_events: p: $kp, r: $kr, with arguments: $ka (count samples address raw)"

bp_load
# check NAME SET EVENT WANT: perf on SET/EVENT reads as WANT.
check() {
    got=$(bpperf "$(cat $T/events/$2/$3/id)" 10)
    if [ "$got" = "$4" ] && [ "${4%% *}" -eq 10 ]; then
        ktap_pass "$1"
    else
        ktap_fail "$1" "perf read '$got', kprobe_events' '$4'"
    fi
}
ktap_check "create_entry_set" bp_ctl "p:pf/getppid $S\np!:pf/getppid_k $S\ncreate pf --events\n"
got=$(bpperf "$(cat $T/events/pf/getppid/id)" 10)
ktap_check "disabled_set_counts_nothing" test "$got" = "0 0 0 -"
ktap_check "enable_entry_set" bp_ctl 'enable pf\n'
check "perf_fprobe_entry" pf getppid "$kp"
check "perf_kprobe_entry" pf getppid_k "$kp"
# Return probes, one set each (two armed on one function would each see
# the other's trampoline as the return address).
ktap_check "fprobe_return" bp_ctl "r:pr/getppid_r $S\ncreate pr --events\nenable pr\n"
check "perf_fprobe_return" pr getppid_r "$kr"
ktap_check "kretprobe_return" bp_ctl "unregister pr --sync\nr!:pk/getppid_r $S\ncreate pk --events\nenable pk\n"
check "perf_kretprobe_return" pk getppid_r "$kr"
# The record's arguments, through the fprobe and through a kprobe.
printf '%s\n' "p:pa/getppid_a $S $ARGS" "p!:pa/getppid_ak $S $ARGS" "create pa --events" "enable pa" > /tmp/pa.batch
ktap_check "args_set" bpwrite $BP_CTL < /tmp/pa.batch
check "perf_fprobe_args" pa getppid_a "$ka"
check "perf_kprobe_args" pa getppid_ak "$ka"
# A d: line's entry records (its fentry site is the fprobe's address),
# alone on getppid: pk's kretprobe would have replaced the return address
# that +0($stack) reads before the direct call runs.
printf '%s\n' "unregister pf" "unregister pk" "unregister pa" "flush" "d:pd/getppid_a $S $ARGS" "create pd" "enable pd" > /tmp/pd.batch
ktap_check "direct_args_set" bpwrite $BP_CTL < /tmp/pd.batch
check "perf_direct_args" pd getppid_a "$ka"
bp_ctl 'unregister pd\nflush\n'
ktap_check "rmmod" rmmod batchprobe
ktap_finish
