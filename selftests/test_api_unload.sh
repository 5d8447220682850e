#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: module lifetimes across the in-kernel API: a client records
#   "depends: batchprobe"; batchprobe cannot unload while a client is loaded;
#   a client cannot unload while its set exists or its retire is pending,
#   and unloads once the teardown completed; an administrator can retire a
#   client's forgotten set through debugfs, which lets the client unload; a
#   client whose init fails with a set live has it retired by batchprobe.
# requires: bpclient_c.ko
. ./bp_lib.sh
bp_skip_if_locked_down "the C client is driven through its debugfs files (control, targets), which lockdown refuses to open for writing"
ktap_plan 19
ctl() { printf "$1" | bpwrite /sys/kernel/debug/bpclient_c/control; }
# Completion callbacks logged so far (earlier tests of this boot log some).
completions() { dmesg | grep -c 'bpclient_c: retire completed'; }
ktap_check "modinfo_depends_batchprobe" test "$(bp_modinfo_depends $BP_CLIENT_C)" = batchprobe
bp_load insmod_batchprobe
ktap_check "insmod_client" insmod "$BP_CLIENT_C"
ktap_check "rmmod_batchprobe_refused_while_client_loaded" sh -c "! rmmod batchprobe 2>/dev/null"
ktap_check "rmmod_client_refused_while_set_exists" sh -c "! rmmod bpclient_c 2>/dev/null"
# A retire queued behind a big teardown stays pending a while.
bp_ctl 'p:big/ *+5 max=1000 skip=*lock*\ncreate big\nenable big\n'
bp_ctl 'unregister big\n'
n0=$(completions)
ctl 'retire_nowait'
pending=$(bp_state bpclient_c.main)
if rmmod bpclient_c 2>/dev/null; then
    # Only possible once the teardown completed and dropped the reference.
    ktap_check "rmmod_only_after_teardown" test "$(completions)" -eq $((n0 + 1))
else
    ktap_check "rmmod_refused_while_retire_pending" test "$pending" = retiring -o "$pending" = freed
    bp_ctl 'flush\n'
    ktap_check "rmmod_after_teardown" rmmod bpclient_c
fi
ktap_check "client_gone" sh -c "! grep -q '^bpclient_c ' /proc/modules"
# A client that never retires: the administrator retires its set.
ktap_check "insmod_client_again" insmod "$BP_CLIENT_C"
n1=$(completions)
ktap_check "admin_retires_forgotten_set" bp_ctl 'unregister bpclient_c.main --sync\n'
ktap_check "admin_retire_freed_it" test "$(bp_state bpclient_c.main)" = freed
ktap_check "client_unloads_after_admin_retire" rmmod bpclient_c
ktap_check "no_done_callback_for_admin_retire" test "$(completions)" -eq "$n1"
# A client whose init fails with its set live: retired by the module notifier.
before=$(kprobes_registered)
ktap_check "failed_init_refused" sh -c "! insmod $BP_CLIENT_C fail_init=1 2>/dev/null"
ktap_check "failed_init_set_retired" test "$(bp_state bpclient_c.main)" = freed
ktap_check "failed_init_probes_gone" test "$(kprobes_registered)" -eq "$before"
# Its handle went with it: batchprobe put it (else the set leaked; the
# debug kernel's kmemleak scan after the selftests would name it).
ktap_check "failed_init_handle_put" sh -c "dmesg | grep -q 'went away holding 1 set handle(s): put them'"
ktap_check "client_loads_again" sh -c "insmod $BP_CLIENT_C && printf retire | bpwrite /sys/kernel/debug/bpclient_c/control && rmmod bpclient_c"
ktap_check "rmmod_batchprobe" rmmod batchprobe
ktap_finish
