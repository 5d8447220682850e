#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: p!: and r!: (rN!:) force int3 kprobes and kretprobes even at +0 on functions ftrace can trace
# requires: CONFIG_KPROBES, CONFIG_KRETPROBES, CONFIG_DYNAMIC_FTRACE (enabled_functions)
#
# The ! before the colon keeps a probe on a kprobe or kretprobe, as every
# p: and r: line was before fprobes served them: at +0 (bare or written
# +0) on getppid and version_proc_show, and for every member of a glob.
# stats names them kprobe and kretprobe, the sets line counts them in
# kprobes= and kretprobes= (fprobes=0, fretprobes=0), the kernel lists each
# one, and they count exactly, only while the set is enabled. The same glob
# without the ! gets fprobes, which the kernel's kprobe list does not show.
. ./bp_lib.sh
ktap_plan 26
trig() { cat /proc/version > /dev/null; }
hits() { echo "$(bp_probe_hits fk ppid)/$(bp_probe_hits fk ret)/$(bp_probe_hits fk v0)/$(bp_probe_hits fk ver)"; }
# TYPES SYM: the kinds (k, r) the kernel lists on SYM, sorted.
types() { awk -v f="$1" 'index($3, f "+") == 1 { print $2 }' /sys/kernel/debug/kprobes/list | sort | tr -d '\n'; }
# KINDS SET: how many of SET's probe lines name each backend ("kprobe=N ...").
kinds() {
    awk -v s="$1" '$1 == "set" { cur = $2; next } cur == s && $4 ~ /^hits=/ { n[$1]++ }
        END { for (k in n) print k "=" n[k] }' "$BP_DEBUGFS/stats" | sort | tr '\n' ' '
}

bp_load
kp0=$(kprobes_registered) ef0=$(ftrace_enabled)
ktap_check "create_forced_set" \
    bp_ctl 'p!:fk/ppid '"${BP_GETPPID}"'\nr!:fk/ret '"${BP_GETPPID}"'\np!:fk/v0 version_proc_show+0\nr16!:fk/ver version_proc_show\ncreate fk\n'
ktap_check "forced_lines_are_kprobes_and_kretprobes" \
    test "$(bp_probe_kind fk ppid)/$(bp_probe_kind fk ret)/$(bp_probe_kind fk v0)/$(bp_probe_kind fk ver)" = kprobe/kretprobe/kprobe/kretprobe
ktap_check "sets_line_counts_no_fprobe" \
    test "$(bp_field fk kprobes)/$(bp_field fk kretprobes)/$(bp_field fk fprobes)/$(bp_field fk fretprobes)" = 2/2/0/0
ktap_check "stats_lines_name_symbol_plus_0" sh -c \
    "grep -q '^  kprobe ppid ${BP_GETPPID}+0 hits=' $BP_DEBUGFS/stats && grep -q '^  kretprobe ver version_proc_show+0 hits=' $BP_DEBUGFS/stats"
ktap_check "kernel_sees_4_more_kprobes" test "$(kprobes_registered)" -eq $((kp0 + 4))
ktap_check "kernel_lists_a_kprobe_and_a_kretprobe_on_each" test "$(types ${BP_GETPPID})/$(types version_proc_show)" = kr/kr
bphit 10 > /dev/null; trig
ktap_check "no_hits_while_registered" test "$(hits)" = 0/0/0/0
ktap_check "enable" bp_ctl 'enable fk\n'
ktap_check "kprobe_and_kretprobe_count_getppid_exact_100" \
    test "$(bp_getppid_counts 100 fk ppid fk ret)" = 100/100
trig; trig; trig
ktap_check "kprobe_and_r16_kretprobe_count_version_exact_3" \
    test "$(bp_probe_hits fk v0)/$(bp_probe_hits fk ver)" = 3/3
ktap_check "disable" bp_ctl 'disable fk\n'
bphit 10 > /dev/null; trig
ktap_check "no_hits_while_disabled" test "$(hits)" = 100/100/3/3
ktap_check "flush" bp_ctl 'flush\n'
ktap_check "disarmed_leaves_ftrace" test "$(ftrace_enabled)" = "$ef0"
ktap_check "unregister_sync" bp_ctl 'unregister fk --sync\n'
ktap_check "kernel_sees_them_gone" test "$(kprobes_registered)" -eq "$kp0"
# A forced glob: every member a kprobe; the same glob unforced: fprobes.
ktap_check "create_forced_glob" bp_ctl 'p!:fg/ '"${BP_SYS}get*"' max=8\ncreate fg\n'
n=$(bp_field fg kprobes)
echo "# p!:fg/ ${BP_SYS}get* max=8: $n kprobes"
ktap_check "forced_glob_all_kprobes" test "$(bp_field fg fprobes) $(kinds fg)" = "0 kprobe=$n "
ktap_check "forced_glob_1_to_8_members" test "$n" -ge 1 -a "$n" -le 8
ktap_check "kernel_sees_each_member" test "$(kprobes_registered)" -eq $((kp0 + n))
ktap_check "create_same_glob_unforced" bp_ctl 'p:ug/ '"${BP_SYS}get*"' max=8\ncreate ug\n'
echo "# p:ug/ ${BP_SYS}get* max=8: $(kinds ug)"
uf=$(bp_field ug fprobes) uk=$(bp_field ug kprobes)
ktap_check "unforced_glob_has_fprobes_the_kernel_does_not_list" \
    test "${uf:-0}" -gt 0 -a "$(kprobes_registered)" -eq $((kp0 + n + ${uk:-0}))
ktap_check "unregister_globs" bp_ctl 'unregister fg\nunregister ug\nflush\n'
ktap_check "nothing_left" test "$(kprobes_registered) $(ftrace_enabled)" = "$kp0 $ef0"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
