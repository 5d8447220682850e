#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: p: at +0 on a function ftrace can trace is an fprobe, and counts every entry exactly
# requires: CONFIG_FPROBE, CONFIG_DYNAMIC_FTRACE (available_filter_functions and enabled_functions)
#
# A p: line at offset 0 (written bare or as +0) on a core-kernel function
# that ftrace can trace and kprobes do not blacklist is served by the set's
# fprobe, not by a kprobe: stats names it "fprobe", the sets line counts it
# in fprobes=, the kernel's kprobe list does not grow. It counts exactly the
# calls made while the set is enabled (getppid through bphit, and
# version_proc_show through /proc/version), none while registered or
# disabled; ftrace calls out from the functions while the set is enabled,
# and no longer once it is disarmed (disable, flush) or unregistered.
. ./bp_lib.sh
ktap_plan 22
trig() { cat /proc/version > /dev/null; }
hits() { echo "$(bp_probe_hits fe ppid)/$(bp_probe_hits fe ver)"; }

bp_load
kp0=$(kprobes_registered)
u0=$(ftrace_users ${BP_GETPPID})/$(ftrace_users version_proc_show)
ktap_check "create_entry_set" bp_ctl 'p:fe/ppid '"${BP_GETPPID}"'\np:fe/ver version_proc_show+0\ncreate fe\n'
ktap_check "both_are_fprobes" test "$(bp_probe_kind fe ppid)/$(bp_probe_kind fe ver)" = fprobe/fprobe
ktap_check "sets_line_counts_2_fprobes_0_kprobes" \
    test "$(bp_field fe kprobes)/$(bp_field fe kretprobes)/$(bp_field fe fprobes)/$(bp_field fe fretprobes)" = 0/0/2/0
ktap_check "stats_header_agrees" \
    test "$(bp_stats_field fe kprobes)/$(bp_stats_field fe kretprobes)/$(bp_stats_field fe fprobes)/$(bp_stats_field fe fretprobes)" = 0/0/2/0
ktap_check "stats_lines_name_symbol_plus_0" sh -c \
    "grep -q '^  fprobe ppid ${BP_GETPPID}+0 hits=' $BP_DEBUGFS/stats && grep -q '^  fprobe ver version_proc_show+0 hits=' $BP_DEBUGFS/stats"
ktap_check "kernel_kprobe_count_unchanged" test "$(kprobes_registered)" -eq "$kp0"
bphit 10 > /dev/null; trig
ktap_check "no_hits_while_registered" test "$(hits)" = 0/0
ktap_check "enable" bp_ctl 'enable fe\n'
ktap_check "ftrace_calls_out_while_enabled" \
    test "$(ftrace_users ${BP_GETPPID})" -gt "${u0%/*}" -a "$(ftrace_users version_proc_show)" -gt "${u0#*/}"
# Nothing between the two readings may call getppid (a new shell does).
h=$(bp_probe_hits fe ppid)
bphit 100 > /dev/null
ktap_check "getppid_entries_exact_100" test "$(bp_probe_hits fe ppid)" -eq $((h + 100))
trig; trig; trig
ktap_check "version_entries_exact_3" test "$(bp_probe_hits fe ver)" -eq 3
ktap_check "still_no_kprobe_while_enabled" test "$(kprobes_registered)" -eq "$kp0"
ktap_check "disable" bp_ctl 'disable fe\n'
bphit 50 > /dev/null; trig
ktap_check "no_hits_while_disabled" test "$(hits)" = 100/3
ktap_check "disarmed_leaves_ftrace" sh -c \
    ". ./bp_lib.sh; bp_ctl 'flush\n' && test \"\$(ftrace_users ${BP_GETPPID})/\$(ftrace_users version_proc_show)\" = '$u0'"
ktap_check "reenable" bp_ctl 'enable fe\n'
bphit 7 > /dev/null; trig
ktap_check "reenable_counts_again_exactly" test "$(hits)" = 107/4
ktap_check "set_hits_total" test "$(bp_field fe hits)" -eq 111
ktap_check "unregister_sync" bp_ctl 'unregister fe --sync\n'
bphit 10 > /dev/null; trig
ktap_check "freed_nothing_left_counting_or_attached" \
    test "$(bp_state fe) $(bp_field fe hits) $(ftrace_users ${BP_GETPPID})/$(ftrace_users version_proc_show) $(kprobes_registered)" = "freed 111 $u0 $kp0"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
