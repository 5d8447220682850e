#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: one set mixing fprobes, a mid-function kprobe, a fretprobe and a kretprobe: each gets its backend and counts exactly
# requires: CONFIG_FPROBE, CONFIG_KPROBES, CONFIG_KRETPROBES, CONFIG_DYNAMIC_FTRACE (enabled_functions)
#
# Each probe line is routed on its own: on version_proc_show, p: at +0 is
# an fprobe, p: past the fentry call a kprobe, r: a fretprobe and r!: a
# (forced) kretprobe; p: on getppid another fprobe. The kernel's kprobe
# list grows by the two int3-backed ones only. Armed, disarmed and counted
# together: every probe sees each call while the set is enabled, none while
# it is registered or disabled. A write that creates and enables such a
# set and then fails leaves nothing behind.
. ./bp_lib.sh
ktap_plan 25
ENOENT=2
trig() { cat /proc/version > /dev/null; }
ver() { echo "$(bp_probe_hits mx entry)/$(bp_probe_hits mx mid)/$(bp_probe_hits mx ret)/$(bp_probe_hits mx kret)"; }
on_ver() { awk '$3 ~ /^version_proc_show\+/ { print $2 }' /sys/kernel/debug/kprobes/list | sort | tr -d '\n'; }
on_ppid() { awk '$3 ~ /^'"${BP_GETPPID}"'\+/' /sys/kernel/debug/kprobes/list | wc -l; }

bp_load
kp0=$(kprobes_registered) ef0=$(ftrace_enabled)
# The first instruction after version_proc_show's fentry call: +5, or +9
# behind an IBT endbr64 (+5 is inside the call there: refused, EILSEQ).
mid=
for off in 5 9; do
    bp_ctl "p:off/x version_proc_show+$off\ncreate off\nunregister off --sync\n" 2> /dev/null && { mid=$off; break; }
done
echo "# mid-function offset: version_proc_show+$mid"
ktap_check "mid_offset_found" test -n "$mid"
ktap_check "create_mixed_set" bp_ctl "p:mx/entry version_proc_show\np:mx/mid version_proc_show+$mid\nr:mx/ret version_proc_show\nr!:mx/kret version_proc_show\np:mx/ppid ${BP_GETPPID}\ncreate mx\n"
ktap_check "each_probe_got_its_backend" \
    test "$(bp_probe_kind mx entry)/$(bp_probe_kind mx mid)/$(bp_probe_kind mx ret)/$(bp_probe_kind mx kret)/$(bp_probe_kind mx ppid)" = fprobe/kprobe/fretprobe/kretprobe/fprobe
ktap_check "sets_line_counts_each_backend" \
    test "$(bp_field mx kprobes)/$(bp_field mx kretprobes)/$(bp_field mx fprobes)/$(bp_field mx fretprobes)" = 1/1/2/1
ktap_check "kernel_kprobes_grow_by_the_int3_ones_only" test "$(kprobes_registered)" -eq $((kp0 + 2))
ktap_check "kprobe_list_has_kprobe_and_kretprobe_no_fprobe" test "$(on_ver)/$(on_ppid)" = kr/0
bphit 10 > /dev/null; trig
ktap_check "no_hits_while_registered" test "$(ver)/$(bp_probe_hits mx ppid)" = 0/0/0/0/0
ktap_check "enable" bp_ctl 'enable mx\n'
trig; trig; trig; trig
ktap_check "every_backend_counts_4_calls" test "$(ver)" = 4/4/4/4
# Nothing between the two readings may call getppid (a new shell does).
h=$(bp_probe_hits mx ppid)
bphit 50 > /dev/null
ktap_check "fprobe_counts_getppid_exact_50" test "$(bp_probe_hits mx ppid)" -eq $((h + 50))
ktap_check "set_hits_total" test "$(bp_field mx hits)" -eq 66
ktap_check "disable" bp_ctl 'disable mx\n'
bphit 10 > /dev/null; trig
ktap_check "no_hits_while_disabled" test "$(ver)/$(bp_probe_hits mx ppid)" = 4/4/4/4/50
ktap_check "flush" bp_ctl 'flush\n'
ktap_check "disarmed_every_backend" test "$(ftrace_enabled)" = "$ef0"
ktap_check "reenable" bp_ctl 'enable mx\n'
trig
ktap_check "reenabled_counts_again" test "$(ver)" = 5/5/5/5
# All or nothing: a set of every backend, created and enabled, then a
# later line of the same write fails.
ef1=$(ftrace_enabled)
bp_expect_err "failed_write_refused_enoent" "$ENOENT" \
    "p:mx2/e ${BP_GETPID}\np:mx2/m version_proc_show+$mid\nr:mx2/r ${BP_GETPID}\nr!:mx2/k ${BP_GETPID}\ncreate mx2\nenable mx2\np:mx3/x no_such_function_xyz\ncreate mx3\n"
ktap_check "failed_write_left_nothing" \
    sh -c "! grep -Eq '^mx[23] ' $BP_DEBUGFS/sets && test \"\$(wc -l < /sys/kernel/debug/kprobes/list)\" -eq $((kp0 + 2))"
ktap_check "failed_write_left_ftrace_as_it_was" test "$(ftrace_enabled)" = "$ef1"
trig
ktap_check "first_set_unaffected" test "$(ver)" = 6/6/6/6
ktap_check "unregister_sync" bp_ctl 'unregister mx --sync\n'
ktap_check "nothing_left" test "$(kprobes_registered) $(ftrace_enabled)" = "$kp0 $ef0"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
