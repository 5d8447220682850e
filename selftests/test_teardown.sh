#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: flush waits for teardowns; unload with teardown pending leaves no kprobe; tracefs kprobes alongside
# requires: CONFIG_KPROBES, CONFIG_KPROBE_EVENTS
#
# Teardown: flush waits for async unregistration, unload with teardown
# pending (and with live sets) leaves no probe behind, and the kernel's own
# kprobe_events keep working alongside batchprobe on the same function.
# The +0 lines are forced onto kprobes (p!:), as they were before fprobes
# served p: at +0: this is about kprobes.
. ./bp_lib.sh
ktap_plan 14
T=/sys/kernel/tracing
trig() { cat /proc/version > /dev/null; }
kp0=$(kprobes_registered)

bp_load
ktap_check "many_sets" bp_ctl 'p:t1/ *+5 max=256 skip=*lock*\ncreate t1\nenable t1\np!:t2/ vfs_* max=32\ncreate t2\np!:t3/v version_proc_show\ncreate t3\nenable t3\n'
ktap_check "unregister_then_flush_in_one_write" bp_ctl 'unregister t1\nflush\n'
ktap_check "flushed_set_is_freed" test "$(bp_state t1)" = freed
ktap_check "name_reusable_after_teardown" bp_ctl 'p!:t1/again version_proc_show\ncreate t1\n'
ktap_check "reused_name_is_live" test "$(bp_state t1)" = registered
# tracefs kprobe event on the same function as a batchprobe probe.
ktap_check "tracefs_kprobe_alongside" sh -c "echo 'p:kprobes/bpcoexist version_proc_show' >> $T/kprobe_events && echo 1 > $T/events/kprobes/bpcoexist/enable"
trig; trig
ktap_check "tracefs_counts_hits" sh -c "test \"\$(awk '/bpcoexist/ { print \$2 }' $T/kprobe_profile)\" -ge 2"
ktap_check "batchprobe_counts_same_hits" test "$(bp_probe_hits t3 v)" = 2
ktap_check "tracefs_removal_alongside" sh -c "echo 0 > $T/events/kprobes/bpcoexist/enable && echo '-:kprobes/bpcoexist' >> $T/kprobe_events"
trig
ktap_check "batchprobe_unaffected_by_tracefs_removal" test "$(bp_probe_hits t3 v)" = 3
# Unload while t2's teardown is queued and t1 (new) and t3 are still live.
ktap_check "unregister_async_then_rmmod" sh -c ". ./bp_lib.sh; bp_ctl 'unregister t2\n' && rmmod batchprobe"
ktap_check "no_probe_left_behind" test "$(kprobes_registered)" -eq "$kp0"
ktap_check "reload_after_pending_unload" sh -c "insmod $BP_KO && rmmod batchprobe"
ktap_finish
