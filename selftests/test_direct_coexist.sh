#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the function tracer, a kprobe and a direct call on the same function all see every call; unload with the detach pending
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_FUNCTION_TRACER, CONFIG_KPROBES
#
# On getppid at once: the function tracer (set_ftrace_filter), a kprobe
# (forced, p!:, as it was an int3/ftrace kprobe before fprobes served p:
# at +0) and a direct call of one set: each sees every call. Then the set
# is unregistered and the module unloaded at once, with the detach still
# queued: no direct caller is left behind.
. ./bp_lib.sh
ktap_plan 4
T=/sys/kernel/tracing
base=$(direct_attached)

bp_load
# Same function: function tracer, a kprobe and a direct call together.
echo ${BP_GETPPID} > $T/set_ftrace_filter
echo function > $T/current_tracer
echo > $T/trace
# Whatever a program before this one left (test_kprobe_address.sh ran with
# the ring buffer off).
echo 1 > $T/tracing_on
ktap_check "coexist_with_tracer_and_kprobe" bp_ctl 'p!:co/kp '"${BP_GETPPID}"'\nd:co/dc '"${BP_GETPPID}"'\ncreate co\nenable co\n'
bphit 20 > /dev/null
echo "# of 20 calls: kprobe $(bp_probe_hits co kp), direct call $(bp_probe_hits co dc), function tracer $(grep -c getppid $T/trace)"
ktap_check "all_three_see_the_calls" sh -c ". ./bp_lib.sh; test \$(bp_probe_hits co kp) -ge 20 && test \$(bp_probe_hits co dc) -ge 20 && test \$(grep -c getppid $T/trace) -ge 20"
echo nop > $T/current_tracer
echo > $T/set_ftrace_filter
ktap_check "unload_with_detach_pending" sh -c ". ./bp_lib.sh; bp_ctl 'unregister co\n' && rmmod batchprobe && test \$(grep -c 'direct-->' $T/enabled_functions) -eq $base"
ktap_finish
