#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a handler that re-enters its own direct set: the first nested
#   call runs (ftrace's transition bit), the next one is refused and counted
#   missed, and the refusal leaves the preempt count as it found it
# requires: bpclient_c.ko, available_filter_functions:jiffies_to_msecs
#
# The C client with reenter=1 calls jiffies_to_msecs() from its handler on
# every direct hit, and direct=jiffies_to_msecs puts that function in its
# own set. A `cat /proc/version` then runs: version_proc_show's direct call
# (the handler holds ftrace's recursion bit for this context), its client
# handler calling jiffies_to_msecs (nested: the transition bit), that
# handler calling it again (refused: counted missed, nothing else). Until
# 2026-12-01 a refusal also released a lock it never took: one
# preempt_enable_notrace() too many per refused call: the CPU's preempt
# count went negative (on the test kernel this test then broke the guest at
# once; on the debug kernel test_direct_all.sh met it now and then).
. ./bp_lib.sh
bp_skip_if_locked_down "the C client is driven through its debugfs files (control, targets), which lockdown refuses to open for writing"
T=/sys/kernel/tracing
ktap_plan 8
# Target 3 of the client's set: jiffies_to_msecs (after its 3 fixed ones).
missed3() { awk '$1 == 3 { sub("missed=", "", $3); print $3 }' /sys/kernel/debug/bpclient_c/counts; }
hits3() { awk '$1 == 3 { sub("hits=", "", $2); print $2 }' /sys/kernel/debug/bpclient_c/counts; }
RE=preempt_count

bp_load
w0=$(bp_kernel_warnings $RE)
ktap_check "insmod_client_reentering" insmod "$BP_CLIENT_C" direct=jiffies_to_msecs reenter=1
m0=$(missed3) h0=$(bp_client_field hits2)
for i in 1 2 3 4 5 6 7 8 9 10; do cat /proc/version > /dev/null; done
ktap_check "outer_direct_calls_counted" test "$(bp_client_field hits2)" -eq $((h0 + 10))
ktap_check "nested_calls_counted" test "$(hits3)" -ge 10
ktap_check "refused_calls_counted_missed" test "$(missed3)" -ge $((m0 + 10))
# Scheduling with a negative preempt count is what the old refusal led to.
for i in 1 2 3 4 5; do sleep 0.1; cat /proc/version > /dev/null; done
ktap_check "no_warning_in_kernel_log" bp_no_new_warnings "$w0" $RE
ktap_check "client_retired_and_unloaded" sh -c "printf retire | bpwrite /sys/kernel/debug/bpclient_c/control && rmmod bpclient_c"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
