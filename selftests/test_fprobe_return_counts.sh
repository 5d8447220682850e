#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: r: (and rN: where fprobe has instance pools) on a function ftrace can trace are fretprobes (the set's exit fprobe), and count every return exactly
# requires: CONFIG_FPROBE, CONFIG_DYNAMIC_FTRACE (available_filter_functions and enabled_functions)
#
# A return probe (r:, or r16: with a maxactive) on a core-kernel function
# ftrace can trace is served by its set's exit fprobe: stats names it
# "fretprobe", the sets line counts it in fretprobes=, and no kretprobe
# appears in the kernel's kprobe list. Two sets return-probe getppid at
# once; each counts exactly the returns made while it is enabled, and
# disabling one neither stops the other nor leaves ftrace calling out from
# a function only the disabled one probed. Where fprobe runs on fgraph (7.3)
# an fprobe has no return-instance pool for rN: to size, so r16: is a
# kretprobe there, and the kernel's kprobe list shows it; the counts are
# the same.
. ./bp_lib.sh
ktap_plan 18
trig() { cat /proc/version > /dev/null; }
hits() { echo "$(bp_probe_hits fr ppid)/$(bp_probe_hits fr ver)/$(bp_probe_hits f16 ppid)"; }
if fprobe_on_fgraph; then
    k16=kretprobe f16_line="1/0" kp_more=1
else
    k16=fretprobe f16_line="0/1" kp_more=0
fi

bp_load
kp0=$(kprobes_registered)
u0=$(ftrace_users ${BP_GETPPID})/$(ftrace_users version_proc_show)
ktap_check "create_two_return_sets" \
    bp_ctl 'r:fr/ppid '"${BP_GETPPID}"'\nr:fr/ver version_proc_show\ncreate fr\nr16:f16/ppid '"${BP_GETPPID}"'\ncreate f16\n'
ktap_check "r_are_fretprobes_r16_is_$k16" \
    test "$(bp_probe_kind fr ppid)/$(bp_probe_kind fr ver)/$(bp_probe_kind f16 ppid)" = "fretprobe/fretprobe/$k16"
ktap_check "sets_lines_count_fretprobes_only" \
    test "$(bp_field fr kprobes)/$(bp_field fr kretprobes)/$(bp_field fr fprobes)/$(bp_field fr fretprobes) $(bp_field f16 kretprobes)/$(bp_field f16 fretprobes)" = "0/0/0/2 $f16_line"
ktap_check "stats_lines_name_symbol_plus_0" sh -c \
    "grep -q '^  fretprobe ppid ${BP_GETPPID}+0 hits=' $BP_DEBUGFS/stats && grep -q '^  fretprobe ver version_proc_show+0 hits=' $BP_DEBUGFS/stats"
ktap_check "kernel_list_has_only_the_kretprobe_of_r16_on_fgraph" test "$(kprobes_registered)" -eq "$((kp0 + kp_more))"
bphit 10 > /dev/null; trig
ktap_check "no_returns_counted_while_registered" test "$(hits)" = 0/0/0
ktap_check "enable_both" bp_ctl 'enable fr\nenable f16\n'
ktap_check "getppid_returns_exact_100_in_both_sets" \
    test "$(bp_getppid_counts 100 fr ppid f16 ppid)" = 100/100
trig; trig; trig
ktap_check "version_returns_exact_3" test "$(bp_probe_hits fr ver)" -eq 3
ktap_check "disable_one" bp_ctl 'disable fr\n'
bphit 20 > /dev/null; trig
ktap_check "disabled_set_stops_other_keeps_counting" test "$(hits)" = "$((h + 100))/3/$((h16 + 120))"
ktap_check "disarm_leaves_only_the_other_calling_out" sh -c \
    ". ./bp_lib.sh; bp_ctl 'flush\n' && test \"\$(ftrace_users ${BP_GETPPID})\" -gt ${u0%/*} && test \"\$(ftrace_users version_proc_show)\" -eq ${u0#*/}"
# That shell's own getppid counted in f16: read the base again.
h16=$(bp_probe_hits f16 ppid)
ktap_check "reenable" bp_ctl 'enable fr\n'
bphit 5 > /dev/null; trig
ktap_check "reenabled_counts_again_exactly" test "$(hits)" = "$((h + 105))/4/$((h16 + 5))"
ktap_check "unregister_both_sync" bp_ctl 'unregister fr\nunregister f16\nflush\n'
ktap_check "freed_nothing_left_attached" \
    test "$(bp_state fr)/$(bp_state f16) $(ftrace_users ${BP_GETPPID})/$(ftrace_users version_proc_show) $(kprobes_registered)" = "freed/freed $u0 $kp0"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
