#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a write that creates a set over a finished one of its name,
#   then fails on a later line, leaves sets and stats byte for byte as they were
# requires: CONFIG_KPROBES, CONFIG_FPROBE
#
# A finished set stays listed until a new set takes its name. A create that
# goes through takes it only once its whole write has: when a later line
# fails, the rollback removes the new set, and the finished one must still
# be there, with its counts. Compared: sets, stats (its first line's
# grace-period totals aside: they count every wait on the system; and its
# text_symbols, which the walk after load sets whenever it ends), the
# kernel's kprobes and ftrace users.
. ./bp_lib.sh
ktap_plan 9
ENOENT=2
# The files a failed write must leave alone.
snapshot() {
    cat $BP_DEBUGFS/sets
    sed '1s/ text_symbols=[0-9]*//; 1s/ grace_periods.*//' $BP_DEBUGFS/stats
    cat /sys/kernel/debug/kprobes/list
    ftrace_enabled
}

bp_load
ktap_check "create_count_retire" bp_ctl 'p:a/x version_proc_show\ncreate a\nenable a\n'
cat /proc/version > /dev/null
ktap_check "retire" bp_ctl 'unregister a --sync\n'
ktap_check "finished_set_listed" test "$(bp_state a)" = freed
before=$(snapshot)
bp_expect_err "failing_write_refused_enoent" "$ENOENT" \
    'p:a/x version_proc_show\ncreate a\np:b/y no_such_function_xyz\ncreate b\n'
after=$(snapshot)
ktap_check "finished_set_still_listed" test "$(bp_state a)" = freed
if [ "$before" = "$after" ]; then
    ktap_pass "files_unchanged"
else
    echo "$before" > /tmp/bp-before
    echo "$after" > /tmp/bp-after
    diff /tmp/bp-before /tmp/bp-after | sed 's/^/# /'
    ktap_fail "files_unchanged"
fi
# A write that goes through still takes the name.
ktap_check "create_that_succeeds_takes_the_name" \
    sh -c ". ./bp_lib.sh; bp_ctl 'p:a/x version_proc_show\ncreate a\n' && test \"\$(grep -c '^a ' $BP_DEBUGFS/sets) \$(bp_state a)\" = '1 registered'"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
