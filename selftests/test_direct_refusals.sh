#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: direct-call creates that must fail (a second direct caller, one function twice in a set, a function ftrace cannot trace) name the symbol and attach nothing
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
#
# With a set of 1001 direct calls attached (getppid among them): a second
# direct caller on getppid fails with EBUSY, as does a set naming one
# function twice; a function ftrace cannot trace (not in
# available_filter_functions) fails with EINVAL. Each error names the
# symbol, and each refused create leaves exactly the 1001 attached.
. ./bp_lib.sh
ktap_plan 12
T=/sys/kernel/tracing
base=$(direct_attached)

bp_load
ktap_check "attach_1001_functions_held" bp_direct_1001 big
bp_expect_err "second_direct_caller_ebusy" 16 'd:dup/again '"${BP_GETPPID}"'\ncreate dup\n'
ktap_check "ebusy_names_symbol" grep -q "${BP_GETPPID}" $BP_DEBUGFS/last_error
ktap_check "ebusy_left_nothing_attached" test "$(direct_attached)" -eq $((base + 1001))
bp_expect_err "same_function_twice_in_a_set_ebusy" 16 'd:tw/a '"${BP_GETPID}"'\nd:tw/b '"${BP_GETPID}"'\ncreate tw\n'
ktap_check "twice_left_nothing_attached" test "$(direct_attached)" -eq $((base + 1001))
# A text symbol ftrace cannot trace (not in available_filter_functions).
untraceable=$(grep ' [tT] ' /proc/kallsyms | awk '{print $3}' | grep -v '\.' | head -400 | \
    while read -r s; do grep -qx "$s" $T/available_filter_functions || { echo "$s"; break; }; done)
bp_expect_err "not_ftrace_able_fails" 22 "d:nf/x $untraceable\nd:nf/y ${BP_GETPID}\ncreate nf\n"
ktap_check "not_ftrace_able_names_symbol" grep -q "$untraceable" $BP_DEBUGFS/last_error
ktap_check "not_ftrace_able_left_nothing" test "$(direct_attached)" -eq $((base + 1001))
ktap_check "unregister_sync_detaches_all" sh -c ". ./bp_lib.sh; bp_ctl 'unregister big --sync\n' && test \$(direct_attached) -eq $base"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
