#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a direct set on the functions its own handler path could call
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
#
# On PREEMPT_RCU kernels rcu_read_lock() is the out-of-line, traceable
# __rcu_read_lock. A direct handler that took rcu_read_lock() would call its
# own trampoline again from inside itself, forever (a hung guest, seen as a
# new user's first try). The handler takes ftrace's recursion lock instead,
# and calls nothing traceable. The set counts calls of both functions and
# detaches cleanly; the kernel keeps running.
. ./bp_lib.sh
ktap_plan 7
T=/sys/kernel/tracing
base=$(direct_attached)

bp_load
if grep -qx '__rcu_read_lock' $T/available_filter_functions; then
    ktap_check "attach_rcu_read_lock_and_unlock" \
        bp_ctl 'd:rcu/lock __rcu_read_lock\nd:rcu/unlock __rcu_read_unlock\ncreate rcu\nenable rcu\n'
    bphit 100 > /dev/null
    cat /proc/self/status > /dev/null
    ktap_check "counts_rcu_read_lock" test "$(bp_probe_hits rcu lock)" -gt 0
    ktap_check "counts_rcu_read_unlock" test "$(bp_probe_hits rcu unlock)" -gt 0
    ktap_check "detach" bp_ctl 'unregister rcu --sync\n'
else
    for c in attach_rcu_read_lock_and_unlock counts_rcu_read_lock counts_rcu_read_unlock detach; do
        ktap_skip "$c" "no traceable __rcu_read_lock (not a PREEMPT_RCU kernel)"
    done
fi
ktap_check "no_direct_caller_left" test "$(direct_attached)" -eq "$base"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
