#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the life of a set of 257 kprobes and of a kretprobe set: register, enable, count, disable, re-enable, unregister
# requires: CONFIG_KPROBES, CONFIG_KRETPROBES
#
# The life of a set of 257 kprobes (the seed's first 256 text symbols that
# accept +5, plus one on a function this test calls, forced onto a kprobe
# with p!: as it sits at +0) and of a kretprobe set (r!:): register,
# enable, count, disable, re-enable, async unregister, flush.
. ./bp_lib.sh
ktap_plan 25
trig() { cat /proc/version > /dev/null; }

bp_load
before=$(kprobes_registered)
ktap_check "create_257_probes" bp_ctl 'p:life/ *+5 max=256 skip=*lock*\np!:life/trig version_proc_show\ncreate life\n'
ktap_check "registered_state" test "$(bp_state life)" = registered
ktap_check "257_kprobes" test "$(bp_field life kprobes)" = 257
ktap_check "skip_glob_left_out_lock_symbols" sh -c "! grep -q '^  kprobe [^ ]*lock' $BP_DEBUGFS/stats"
ktap_check "kernel_sees_257_more" test "$(kprobes_registered)" -eq $((before + 257))
trig
ktap_check "no_hits_while_registered" test "$(bp_probe_hits life trig)" = 0
ktap_check "enable" bp_ctl 'enable life\n'
ktap_check "enabled_state" test "$(bp_state life)" = enabled
trig; trig; trig
ktap_check "three_hits_counted" test "$(bp_probe_hits life trig)" = 3
ktap_check "disable" bp_ctl 'disable life\n'
trig
ktap_check "no_hits_while_disabled" test "$(bp_probe_hits life trig)" = 3
ktap_check "disarmed_in_background" sh -c ". ./bp_lib.sh; bp_ctl 'flush\n' && test \"\$(bp_timing life disarm_ns)\" -gt 0"
ktap_check "reenable_counts_again" sh -c ". ./bp_lib.sh; bp_ctl 'enable life\n' && cat /proc/version >/dev/null && test \"\$(bp_probe_hits life trig)\" = 4"
ktap_check "unregister_async" bp_ctl 'unregister life\n'
ktap_check "flush" bp_ctl 'flush\n'
ktap_check "freed_after_flush" test "$(bp_state life)" = freed
ktap_check "skipped_count_kept_after_teardown" test "$(bp_field life skipped)" -gt 0
ktap_check "kernel_sees_them_gone" test "$(kprobes_registered)" -eq "$before"
call=$(bp_timing life unregister_call_ns)
done_ns=$(bp_timing life unregister_complete_ns)
ktap_check "unregister_returned_before_teardown_completed" test "$call" -gt 0 -a "$call" -lt "$done_ns"
trig
ktap_check "counts_frozen_after_teardown" test "$(bp_field life hits)" -ge 4
ktap_check "kretprobe_set" bp_ctl 'r!:ret/rv version_proc_show\ncreate ret\nenable ret\n'
trig; trig
ktap_check "kretprobe_counts_returns" test "$(bp_probe_hits ret rv)" = 2
ktap_check "unregister_sync_waits" sh -c ". ./bp_lib.sh; bp_ctl 'unregister ret --sync\n' && test \"\$(bp_state ret)\" = freed"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
