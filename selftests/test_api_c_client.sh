#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the C sample client (clients/c) makes one set through the
#   in-kernel API: 3 probes on version_proc_show (kprobe, kretprobe, direct)
#   plus 300 kprobes, 2 kretprobes and 2 direct calls of its choosing; its
#   own handler sees exact counts, the arguments and return value, and
#   batchprobe's per-target counts agree; it retires asynchronously, waits
#   on the completion, and unloads.
# requires: bpclient_c.ko
. ./bp_lib.sh
bp_skip_if_locked_down "the C client is driven through its debugfs files (control, targets), which lockdown refuses to open for writing"
ktap_plan 20
ctl() { printf "$1" | bpwrite /sys/kernel/debug/bpclient_c/control; }

bp_load insmod_batchprobe
kp=$(bp_pick_kprobes pick 300)
ktap_check "picked_300_kprobes" test "$(echo "$kp" | grep -c '^p ')" -eq 300
bp_ctl 'unregister pick --sync\n'
before=$(kprobes_registered)
ktap_check "insmod_client" bp_client_c_load "$kp" kretprobes=vfs_open,vfs_getattr direct=vfs_read,vfs_write
ktap_check "set_named_by_owner" test "$(bp_state bpclient_c.main)" = enabled
ktap_check "one_batch_of_all_targets" test "$(bp_field bpclient_c.main kprobes)/$(bp_field bpclient_c.main kretprobes)/$(bp_field bpclient_c.main direct)" = 301/3/3
ktap_check "kernel_sees_304_more_kprobes" test "$(kprobes_registered)" -eq $((before + 304))
h0=$(bp_client_field hits0) h1=$(bp_client_field hits1) h2=$(bp_client_field hits2)
for i in 1 2 3 4 5; do cat /proc/version > /dev/null; done
ktap_check "handler_kprobe_exact" test "$(bp_client_field hits0)" -eq $((h0 + 5))
ktap_check "handler_kretprobe_exact" test "$(bp_client_field hits1)" -eq $((h1 + 5))
ktap_check "handler_direct_exact" test "$(bp_client_field hits2)" -eq $((h2 + 5))
di=$(bp_client_field kprobe_di) a0=$(bp_client_field direct_arg0)
ktap_check "kprobe_regs_and_direct_args_agree" test "$di" = "$a0" -a "$di" != 0
ktap_check "kretprobe_return_value_and_kinds" test "$(bp_client_field retval)/$(bp_client_field bad_kind)" = 0/0
# Targets 3-6: kretprobes vfs_open, vfs_getattr, direct vfs_read, vfs_write.
ktap_check "chosen_targets_hit" test "$(awk '($1 == 3 || $1 == 5 || $1 == 6) && $2 != "hits=0"' /sys/kernel/debug/bpclient_c/counts | wc -l)" -eq 3
ktap_check "client_disable" ctl 'disable'
ktap_check "batchprobe_counts_agree_with_handler" sh -c "awk '{ h = \$2; m = \$4; sub(\"hits=\", \"\", h); sub(\"mine=\", \"\", m); if (h != m) bad++ } END { exit bad || NR != 307 }' /sys/kernel/debug/bpclient_c/counts"
ktap_check "client_enable_again" ctl 'enable'
ktap_check "retire_waits_on_completion" ctl 'retire'
ktap_check "done_called_once_and_freed" test "$(bp_client_field done_calls)/$(bp_state bpclient_c.main)" = 1/freed
ktap_check "kernel_sees_them_gone" test "$(kprobes_registered)" -eq "$before"
ktap_check "rmmod_client" rmmod bpclient_c
ktap_check "rmmod_batchprobe" rmmod batchprobe
ktap_finish
