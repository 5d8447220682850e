#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: an fprobe set, a direct set and a tracefs kprobe event on the same function, in either order, all count exactly
# requires: CONFIG_FPROBE, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_KPROBE_EVENTS
#
# On __x64_sys_getppid at once: batchprobe's fprobe and fretprobe (set fs),
# its direct call (set ds), and the kernel's own kprobe_events probe (an
# ftrace-based kprobe, counted in kprobe_profile). Created in one order,
# then in the reverse one; each sees every call, exactly; each torn down in
# turn (a different order each time) leaves the others counting exactly;
# nothing is left in enabled_functions or the kernel's kprobe list.
. ./bp_lib.sh
ktap_plan 27
T=/sys/kernel/tracing
tracefs_add() {
    echo 'p:kprobes/bpco '"${BP_GETPPID}" >> $T/kprobe_events && echo 1 > $T/events/kprobes/bpco/enable
}
tracefs_del() {
    echo 0 > $T/events/kprobes/bpco/enable && echo '-:kprobes/bpco' >> $T/kprobe_events
}
tracefs_hits() { awk '$1 == "bpco" { print $2 }' $T/kprobe_profile; }
# counts WHICH...: the live counts of each of fe (fs's fprobe), fr (its
# fretprobe), d (ds's direct call), k (the tracefs event), "/"-separated.
counts() {
    for c in "$@"; do
        case $c in
            fe) bp_probe_hits fs e ;;
            fr) bp_probe_hits fs r ;;
            d) bp_probe_hits ds g ;;
            k) tracefs_hits ;;
        esac
    done | tr '\n' / | sed 's,/$,,'
}
# CALLS N WHICH...: whether getppid called N times adds exactly N to each.
# Runs in this shell: no new shell may call getppid meanwhile.
calls() {
    n=$1; shift
    before=$(counts "$@")
    bphit "$n" > /dev/null
    after=$(counts "$@")
    want=$(echo "$before" | awk -F/ -v n="$n" '{ for (i = 1; i <= NF; i++) printf "%s%d", (i > 1 ? "/" : ""), $i + n }')
    [ "$after" = "$want" ] || { echo "before $before, after $after, wanted $want"; return 1; }
}
fs_lines='p:fs/e '"${BP_GETPPID}"'\nr:fs/r '"${BP_GETPPID}"'\ncreate fs\nenable fs\n'
ds_lines='d:ds/g '"${BP_GETPPID}"'\ncreate ds\nenable ds\n'

bp_load
kp0=$(kprobes_registered) ef0=$(ftrace_enabled) d0=$(direct_attached)
# Order 1: the fprobe set, the direct set, the tracefs event.
ktap_check "fprobe_set_first" bp_ctl "$fs_lines"
ktap_check "fprobe_set_is_fprobe_backed" test "$(bp_probe_kind fs e)/$(bp_probe_kind fs r)" = fprobe/fretprobe
ktap_check "direct_set_second" bp_ctl "$ds_lines"
ktap_check "tracefs_event_third" tracefs_add
ktap_check "kernel_lists_only_the_tracefs_kprobe" test "$(kprobes_registered)" -eq $((kp0 + 1))
ktap_check "all_four_count_100_exactly" calls 100 fe fr d k
# Torn down: the tracefs event, the direct set, the fprobe set.
ktap_check "tracefs_event_removed_first" tracefs_del
ktap_check "fprobe_and_direct_still_count_exactly" calls 50 fe fr d
ktap_check "direct_set_detached_second" bp_ctl 'unregister ds --sync\n'
ktap_check "fprobe_set_still_counts_exactly" calls 30 fe fr
ktap_check "fprobe_set_unregistered_last" bp_ctl 'unregister fs --sync\n'
ktap_check "order_1_left_nothing" \
    test "$(kprobes_registered) $(direct_attached) $(ftrace_enabled)" = "$kp0 $d0 $ef0"
# Order 2: the tracefs event, the direct set, the fprobe set (names reused).
ktap_check "tracefs_event_first" tracefs_add
ktap_check "direct_set_second_again" bp_ctl "$ds_lines"
ktap_check "fprobe_set_third" bp_ctl "$fs_lines"
ktap_check "fprobe_set_is_fprobe_backed_again" test "$(bp_probe_kind fs e)/$(bp_probe_kind fs r)" = fprobe/fretprobe
ktap_check "all_four_count_100_exactly_again" calls 100 fe fr d k
# Torn down: the fprobe set, the tracefs event, the direct set.
ktap_check "fprobe_set_unregistered_first" bp_ctl 'unregister fs --sync\n'
ktap_check "direct_and_tracefs_still_count_exactly" calls 50 d k
ktap_check "fprobe_set_froze" test "$(bp_field fs hits)" -eq 200
ktap_check "tracefs_event_removed_second" tracefs_del
ktap_check "direct_set_still_counts_exactly" calls 30 d
ktap_check "direct_set_detached_last" bp_ctl 'unregister ds --sync\n'
ktap_check "order_2_left_nothing" \
    test "$(kprobes_registered) $(direct_attached) $(ftrace_enabled)" = "$kp0 $d0 $ef0"
ktap_check "no_tracefs_event_left" sh -c "! grep -q bpco $T/kprobe_events"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
