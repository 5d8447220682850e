#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the exit trampoline, function_graph, kprobes, kretprobes and fprobe exit handlers on one function, in both attach orders, all count exactly
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF, CONFIG_KPROBE_EVENTS, CONFIG_FPROBE, CONFIG_FUNCTION_GRAPH_TRACER
#
# On __x64_sys_getppid at once: batchprobe's exit set (ex: entries and
# exits), the function_graph tracer, a tracefs kprobe and kretprobe
# (kprobe_profile), and batchprobe's fprobe entry and exit handlers (set
# fs: p: and r:, the fprobe backend). The kretprobe, function_graph and the
# fprobe exit all take over the caller's return address; the exit
# trampoline returns through it. Attached exit set first, then the others;
# then the others first and the exit set last; every counter sees every
# call, and function_graph logs them.
. ./bp_lib.sh
ktap_plan 16
T=/sys/kernel/tracing
others_on() {
    echo ${BP_GETPPID} > $T/set_ftrace_filter &&
    echo function_graph > $T/current_tracer &&
    echo 'p:kprobes/bpxk '"${BP_GETPPID}" >> $T/kprobe_events &&
    echo 'r:kprobes/bpxr '"${BP_GETPPID}" >> $T/kprobe_events &&
    echo 1 > $T/events/kprobes/bpxk/enable && echo 1 > $T/events/kprobes/bpxr/enable &&
    bp_ctl 'p:fs/e '"${BP_GETPPID}"'\nr:fs/r '"${BP_GETPPID}"'\ncreate fs\nenable fs\n'
}
others_off() {
    echo nop > $T/current_tracer && echo > $T/set_ftrace_filter &&
    echo 0 > $T/events/kprobes/bpxk/enable && echo 0 > $T/events/kprobes/bpxr/enable &&
    echo '-:kprobes/bpxk' >> $T/kprobe_events && echo '-:kprobes/bpxr' >> $T/kprobe_events &&
    bp_ctl 'unregister fs --sync\n'
}
exit_on() { bp_ctl 'd:ex/pid '"${BP_GETPPID}"'\ncreate ex --exit\nenable ex\n'; }
exit_off() { bp_ctl 'unregister ex --sync\n'; }
profile() { awk -v e="$1" '$1 == e { print $2 }' $T/kprobe_profile; }
counts() {
    echo "$(bp_exit_field ex pid hits)/$(bp_exit_field ex pid exits)/$(profile bpxk)/$(profile bpxr)/$(bp_probe_hits fs e)/$(bp_probe_hits fs r)"
}
# calls N: getppid N times adds N to every counter, the return value is
# still the caller's, and function_graph logged N more calls.
calls() {
    n=$1 before=$(counts)
    echo > $T/trace
    bphit "$n" > /dev/null
    after=$(counts)
    want=$(echo "$before" | awk -F/ -v n="$n" '{ for (i = 1; i <= NF; i++) printf "%s%d", (i > 1 ? "/" : ""), $i + n }')
    graph=$(grep -c "${BP_GETPPID}" $T/trace)
    ret=$(bp_hex "$(bp_exit_field ex pid last_ret)")
    # bphit's parent: this (sub)shell, whose pid $$ does not give.
    me=$(sh -c 'echo $PPID')
    echo "# before $before after $after (wanted $want), function_graph lines $graph, last_ret $ret (caller $me)"
    [ "$after" = "$want" ] && [ "$graph" -ge "$n" ] && [ "$ret" -eq "$me" ]
}
echo 1 > /proc/sys/kernel/kptr_restrict
d0=$(direct_attached) ef0=$(ftrace_enabled)

bp_load
# Order 1: the exit set first.
ktap_check "exit_set_first" exit_on
ktap_check "then_graph_kprobes_fprobes" others_on
ktap_check "fs_is_fprobe_backed" test "$(bp_probe_kind fs e)/$(bp_probe_kind fs r)" = fprobe/fretprobe
ktap_check "all_count_100_exactly" calls 100
ktap_check "others_removed_first" others_off
ktap_check "exit_set_alone_counts_exactly" sh -c ". ./bp_lib.sh; b=\$(bp_exit_field ex pid exits); bphit 10 > /dev/null; test \$((\$(bp_exit_field ex pid exits) - b)) -eq 10"
ktap_check "exit_set_removed" exit_off
# Order 2: the others first, the exit set last.
ktap_check "others_first" others_on
ktap_check "then_exit_set" exit_on
ktap_check "all_count_70_exactly" calls 70
ktap_check "exit_set_removed_first" exit_off
ktap_check "others_removed" others_off
ktap_check "no_direct_caller_left" test "$(direct_attached)" -eq "$d0"
bp_wait_unpinned
ktap_check "rmmod" rmmod batchprobe
ktap_check "enabled_functions_as_before" test "$(ftrace_enabled)" = "$ef0"
ktap_finish
