#!/bin/sh
# Every function ftrace can trace as one direct set (the issue's "as many as
# the kernel has"): one attach, calls counted while the whole kernel runs
# through the trampoline (under lockdep and RCU checking in the test
# kernel), and one detach that leaves no direct caller behind.
. ./ktap.sh
ktap_plan 8
T=/sys/kernel/tracing
direct_attached() { grep -c 'direct-->' $T/enabled_functions; }
base=$(direct_attached)
total=$(wc -l < $T/available_filter_functions)   # core kernel: before insmod

ktap_check "insmod" insmod "$BP_KO"
ktap_check "attach_every_traceable_function" bp_ctl 'd:all * max=1000000\ncreate all\nenable all\n'
got=$(bp_field all direct)
echo "# $got of $total ftrace-able functions attached;" \
    "register $(($(bp_timing all register_ns) / 1000000)) ms, attach $(($(bp_timing all attach_ns) / 1000000)) ms"
ktap_check "attached_every_one" test "$got" -eq "$total"
ktap_check "ftrace_sees_every_one" test "$(direct_attached)" -eq $((base + got))
bphit 100 > /dev/null
ktap_check "counts_calls" test "$(bp_field all hits)" -ge 100
ktap_check "detach_all" bp_ctl 'unregister all --sync\n'
ktap_check "no_direct_caller_left" test "$(direct_attached)" -eq "$base"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
