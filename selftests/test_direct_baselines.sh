#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a direct set's benchmark baselines attach, count and detach: one ftrace_ops per function (--one-by-one), an fprobe (--fprobe)
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_FPROBE
#
# make bench compares a direct set's one ops (one filter update, one
# patching pass) with two baselines the same d: lines can be created as:
# one ftrace_ops per function, and one fprobe. Each attaches, counts (the
# fprobe one cannot switch trampolines: EINVAL) and detaches completely.
. ./bp_lib.sh
ktap_plan 8
T=/sys/kernel/tracing
base=$(direct_attached)

bp_load
ktap_check "ops_per_function_attach" bp_ctl 'd:ob/ * max=8\ncreate ob --one-by-one\n'
ktap_check "ops_per_function_attached_8" test "$(direct_attached)" -eq $((base + 8))
ktap_check "ops_per_function_detach" sh -c ". ./bp_lib.sh; bp_ctl 'unregister ob --sync\n' && test \$(grep -c 'direct-->' $T/enabled_functions) -eq $base"
traced=$(wc -l < $T/enabled_functions)
ktap_check "fprobe_attach_and_count" sh -c ". ./bp_lib.sh; bp_ctl 'd:fp/x ${BP_GETPPID}\ncreate fp --fprobe\nenable fp\n' && bphit 10 >/dev/null && test \$(bp_probe_hits fp x) -ge 10"
bp_expect_err "fprobe_set_cannot_retarget" 22 'direct fp record\n'
ktap_check "fprobe_detach" sh -c ". ./bp_lib.sh; bp_ctl 'unregister fp --sync\n' && test \$(wc -l < $T/enabled_functions) -eq $traced"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
