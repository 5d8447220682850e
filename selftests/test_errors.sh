#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: bad input gets a clear errno and changes nothing; batches are all or nothing
# requires: CONFIG_KPROBES
#
# Bad input gets a clear errno and leaves state unchanged; batches are all
# or nothing; the error names the line and the symbol. "Unchanged" counts
# the kernel's kprobes: the lines that register something are forced onto
# kprobes (p!:), as is the one on a blacklisted symbol (the blacklist is
# the kprobes'; where a p: line on it goes is test_backend_fallback.sh's).
. ./bp_lib.sh
ktap_plan 24
ENOENT=2 E2BIG=7 EEXIST=17 EBUSY=16 EINVAL=22 EILSEQ=84 EALREADY=114

bp_load
ktap_check "baseline_set" bp_ctl 'p!:base/v version_proc_show\ncreate base\n'
sets0=$(cat $BP_DEBUGFS/sets)
kp0=$(kprobes_registered)
unchanged() { test "$(cat $BP_DEBUGFS/sets)" = "$sets0" && test "$(kprobes_registered)" -eq "$kp0"; }

bp_expect_err "unknown_symbol_enoent" "$ENOENT" 'p:e1/ no_such_function_xyz\ncreate e1\n'
ktap_check "unknown_symbol_state_unchanged" unchanged
ktap_check "last_error_names_symbol" grep -q "no_such_function_xyz" $BP_DEBUGFS/last_error
# A blacklisted function ftrace can trace (one it cannot is refused as
# notrace first, as kprobe_events refuses it): the blacklist's refusal.
black=$(awk 'NF == 2 { print $2 }' /sys/kernel/debug/kprobes/blacklist | grep -v '\.' |
    grep -xF -f - /sys/kernel/tracing/available_filter_functions | head -1)
if [ -n "$black" ]; then
    bp_expect_err "blacklisted_symbol_einval" "$EINVAL" "p!:e2/ $black\ncreate e2\n"
    ktap_check "blacklisted_names_symbol_and_blacklist" \
        grep -q "p!:e2/ $black: probing refused: blacklisted" $BP_DEBUGFS/last_error
else
    ktap_skip "blacklisted_symbol_einval" "no function both blacklisted and ftrace-able"
    ktap_skip "blacklisted_names_symbol_and_blacklist" "no function both blacklisted and ftrace-able"
fi
bp_expect_err "bad_offset_syntax" "$EINVAL" 'p:e3/ vfs_read+zz\n'
bp_expect_err "offset_inside_instruction" "$EILSEQ" 'p:e3/ version_proc_show+1\ncreate e3\n'
bp_expect_err "duplicate_set_name" "$EEXIST" 'p:base/ vfs_read\n'
bp_expect_err "create_existing_set" "$EEXIST" 'p:dup/ vfs_read\ncreate dup\ncreate dup\n'
bp_expect_err "duplicate_probe_name" "$EEXIST" 'p:d2/x vfs_read\np:d2/x vfs_write\ncreate d2\n'
bp_expect_err "unknown_set" "$ENOENT" 'enable nosuchset\n'
bp_expect_err "create_nothing_staged" "$ENOENT" 'create empty\n'
long=$(head -c 1100 /dev/zero | tr '\0' 'a')
bp_expect_err "over_long_line" "$E2BIG" "p:e4/ $long\n"
bp_expect_err "binary_junk" "$EINVAL" '\377\376\001\002junk\n'
bp_expect_err "enable_retiring_set" "$EBUSY" 'unregister base\nenable base\n'
bp_expect_err "unregister_twice" "$EALREADY" 'unregister base\nunregister base\n'
ktap_check "failed_batches_changed_nothing" unchanged
bp_expect_err "all_or_nothing_across_sets" "$ENOENT" 'p!:a1/ vfs_read\ncreate a1\np!:a2/ vfs_write\np!:a2/ no_such_function_xyz\ncreate a2\n'
ktap_check "all_or_nothing_state_unchanged" unchanged
# Two writers race to create the same set: one wins, the other sees EEXIST.
(bp_ctl 'p:race/ vfs_* max=16\ncreate race\n' 2>/tmp/race1; echo $? > /tmp/race1.rc) &
(bp_ctl 'p:race/ vfs_* max=16\ncreate race\n' 2>/tmp/race2; echo $? > /tmp/race2.rc) &
wait
ktap_check "racing_writers_one_wins" test "$(cat /tmp/race1.rc /tmp/race2.rc | sort | tr -d '\n')" = 01
ktap_check "racing_loser_got_eexist" grep -qF "(errno $EEXIST)" /tmp/race1 /tmp/race2
ktap_check "rmmod" rmmod batchprobe
ktap_finish
