#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the Rust sample client (clients/rust) uses the safe wrapper:
#   a set dropped at load is retired by Drop; a kept set counts exact hits in
#   its Handler (kprobe, kretprobe, direct on version_proc_show), keeps the
#   client loaded until retired, and the counts agree with batchprobe's; an
#   entry + exit set (Kind::DirectExit on cmdline_proc_show) gets each call
#   at entry and at return, with its return value and duration, exactly.
# requires: bpclient_rs.ko
. ./bp_lib.sh
ktap_plan 16
ktap_check "modinfo_depends_batchprobe" test "$(bp_modinfo_depends $BP_CLIENT_RS)" = batchprobe
bp_load insmod_batchprobe
ktap_check "insmod_client" insmod "$BP_CLIENT_RS"
ktap_check "drop_retired_scoped_set" test "$(bp_state bpclient_rs.scoped)" = freed
ktap_check "live_set_enabled" test "$(bp_state bpclient_rs.live)" = enabled
ktap_check "live_set_targets" test "$(bp_field bpclient_rs.live kprobes)/$(bp_field bpclient_rs.live kretprobes)/$(bp_field bpclient_rs.live direct)" = 1/1/1
ktap_check "exit_set_enabled" test "$(bp_state bpclient_rs.exits)/$(bp_stats_field bpclient_rs.exits mode)" = enabled/exit
for i in 1 2 3 4 5 6 7; do cat /proc/version > /dev/null; cat /proc/cmdline > /dev/null; done
ktap_check "batchprobe_counts_7_per_target" test "$(bp_field bpclient_rs.live hits)" -eq 21
ktap_check "batchprobe_counts_7_exits" test "$(bp_exit_field bpclient_rs.exits cmdline_proc_show hits)/$(bp_exit_field bpclient_rs.exits cmdline_proc_show exits)" = 7/7
ktap_check "rmmod_refused_while_live" sh -c "! rmmod bpclient_rs 2>/dev/null"
ktap_check "admin_retires_live_set" bp_ctl 'unregister bpclient_rs.live --sync\n'
ktap_check "admin_retires_exit_set" bp_ctl 'unregister bpclient_rs.exits --sync\n'
ktap_check "rmmod_client" rmmod bpclient_rs
ktap_check "handler_counted_exactly" sh -c "dmesg | grep -q 'bpclient_rs: handler kprobe=7 kretprobe=7 direct=7 wrong_kind=0 arg0_match=true batchprobe kprobe=7 kretprobe=7 direct=7 (of 3)'"
ktap_check "exit_handler_counted_exactly" sh -c "dmesg | grep -q 'bpclient_rs: exits entries=7 returns=7 wrong=0 batchprobe hits=7'"
bp_wait_unpinned
ktap_check "rmmod_batchprobe" rmmod batchprobe
ktap_finish
