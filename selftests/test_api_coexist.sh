#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a set made through the in-kernel API and a control-file set
#   probe the same functions at once (300 kprobes, and a kprobe and a
#   kretprobe on version_proc_show, forced with p!: and r!: as the API's
#   are): each counts every hit, and each one's retirement leaves the other
#   counting.
# requires: bpclient_c.ko
. ./bp_lib.sh
bp_skip_if_locked_down "the C client is driven through its debugfs files (control, targets), which lockdown refuses to open for writing"
ktap_plan 11
bp_load insmod_batchprobe
kp=$(bp_pick_kprobes dbg 300)
bp_ctl 'p!:ver/k version_proc_show\nr!:ver/r version_proc_show\ncreate ver\nenable ver\nenable dbg\n'
ktap_check "insmod_client_on_the_same_functions" bp_client_c_load "$kp"
ktap_check "both_sets_enabled" test "$(bp_state dbg)/$(bp_state ver)/$(bp_state bpclient_c.main)" = enabled/enabled/enabled
h0=$(bp_client_field hits0) h1=$(bp_client_field hits1) k=$(bp_probe_hits ver k) r=$(bp_probe_hits ver r)
for i in 1 2 3; do cat /proc/version > /dev/null; done
ktap_check "client_counts_3" test "$(bp_client_field hits0)/$(bp_client_field hits1)" = $((h0 + 3))/$((h1 + 3))
ktap_check "control_set_counts_3" test "$(bp_probe_hits ver k)/$(bp_probe_hits ver r)" = $((k + 3))/$((r + 3))
ktap_check "client_retires" sh -c "printf retire | bpwrite /sys/kernel/debug/bpclient_c/control"
for i in 1 2; do cat /proc/version > /dev/null; done
ktap_check "control_set_still_counts" test "$(bp_probe_hits ver k)/$(bp_probe_hits ver r)" = $((k + 5))/$((r + 5))
ktap_check "control_set_still_registered" test "$(bp_field dbg kprobes)" -eq 300
ktap_check "rmmod_client" rmmod bpclient_c
ktap_check "control_sets_retire" bp_ctl 'unregister dbg\nunregister ver\nflush\n'
ktap_check "rmmod_batchprobe" rmmod batchprobe
ktap_finish
