#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a live switch of a direct set's trampoline, count to record and back, without detaching
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
#
# A direct set of 1001 functions switches, live, to the counting-and-
# recording trampoline: it goes on counting, records each function's last
# first argument, stays attached; and switches back to counting.
. ./bp_lib.sh
ktap_plan 11
base=$(direct_attached)

bp_load
ktap_check "attach_1001_functions_to_switch" bp_direct_1001 big
bphit 100 > /dev/null
ktap_check "counts_before_the_switch" test "$(bp_probe_hits big pid)" -ge 100
before=$(bp_probe_hits big pid)
ktap_check "retarget_to_record_live" bp_ctl 'direct big record\n'
bphit 5 > /dev/null
ktap_check "record_mode_counts" test "$(bp_probe_hits big pid)" -ge $((before + 5))
# Shown as %pK: hashed with kptr_restrict=0 (the default), raw at 1 (root
# has CAP_SYSLOG), zeros at 2; recorded in any case.
ktap_check "record_mode_records_first_arg" sh -c "grep ' pid ' $BP_DEBUGFS/stats | grep -q 'last_arg=[0-9a-f]*[1-9a-f]'"
ktap_check "still_attached_after_switch" test "$(direct_attached)" -eq $((base + 1001))
ktap_check "retarget_back_to_count" bp_ctl 'direct big count\n'
before=$(bp_probe_hits big pid)
bphit 5 > /dev/null
ktap_check "count_mode_counts_after_switching_back" test "$(bp_probe_hits big pid)" -ge $((before + 5))
ktap_check "unregister_sync_detaches_all" sh -c ". ./bp_lib.sh; bp_ctl 'unregister big --sync\n' && test \$(direct_attached) -eq $base"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
