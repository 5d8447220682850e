#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a return through the exit trampoline is charged to the set the call was counted in, never to a set that attached the function while the task was inside
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF
# speed: slow
#
# A task enters ppoll through exit set A and sleeps there. A is detached
# and set B attaches ppoll while the task is still inside; when it returns
# through the exit trampoline, the return belongs to A's call (A is gone:
# it is counted nowhere), not to B, which never counted that call: B must
# not show more exits than hits, nor exits at all in count mode.
. ./bp_lib.sh
ktap_plan 14

# sleep_inside SET: a sleeper in ppoll, counted in by exit set SET, until
# wake_sleeper; its pid in $pid.
sleep_inside() {
    bpsleep -w 600000 &
    pid=$!
    bp_wait_inside "$1" pp
}
# wake_sleeper: SIGUSR1 ends its ppoll; its status (0: woken in ppoll).
wake_sleeper() {
    kill -USR1 $pid
    wait $pid
}

bp_load
# 1: B, in exit mode, attaches ppoll while A's sleeper is inside.
ktap_check "exit_set_a" bp_ctl 'd:a/pp __x64_sys_ppoll\ncreate a --exit\nenable a\n'
sleep_inside a
ktap_check "sleeper_counted_in_a" test "$(bp_exit_field a pp hits)" -ge 1
ktap_check "detach_a" bp_ctl 'unregister a --sync\n'
ktap_check "exit_set_b" bp_ctl 'd:b/pp __x64_sys_ppoll\ncreate b --exit\nenable b\n'
wake_sleeper
ktap_check "sleeper_returned" test $? -eq 0
hb=$(bp_exit_field b pp hits) xb=$(bp_exit_field b pp exits)
echo "# b: hits=$hb exits=$xb"
ktap_check "b_not_charged_for_a_call" test "$xb" -le "$hb"
# 2: C, in count mode, attaches ppoll while B's sleeper is inside: a
# count-mode set never shows exits.
sleep_inside b
ktap_check "sleeper_counted_in_b" test "$(bp_exit_field b pp hits)" -ge 1
ktap_check "detach_b" bp_ctl 'unregister b --sync\n'
ktap_check "count_set_c" bp_ctl 'd:c/pp __x64_sys_ppoll\ncreate c\nenable c\n'
wake_sleeper
echo "# c: $(awk '$1 == "set" { cur = $2; next } cur == "c" && $1 == "direct"' $BP_DEBUGFS/stats)"
ktap_check "c_shows_no_exits" test -z "$(bp_exit_field c pp exits)"
ktap_check "unregister_c" bp_ctl 'unregister c --sync\n'
ktap_check "pin_released" bp_wait_unpinned 30
ktap_check "rmmod" rmmod batchprobe
ktap_finish
