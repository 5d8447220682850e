#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a task asleep inside a function the exit trampoline called returns through it after detach, and unload waits for it
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF
#
# The exit trampoline is on the stack of a task sleeping in the traced
# function's body: the return address of the body is in batchprobe's text.
# Detaching the set must not stop that task from returning through it, and
# the module's text must stay until it has: the module pins itself while a
# task may be inside (rmmod: EWOULDBLOCK) and lets go once none is and an
# RCU-tasks grace period has passed (src/direct.rs).
. ./bp_lib.sh
ktap_plan 11
base=$(direct_attached)

bp_load
# ppoll: bpsleep sleeps in it, and nothing else in the guest calls it
# (busybox and the kselftest runner sleep in nanosleep, poll in poll).
ktap_check "exit_set_on_ppoll" bp_ctl 'd:zz/pp __x64_sys_ppoll\ncreate zz --exit\nenable zz\n'
# Inside ppoll until SIGUSR1 wakes it (10 minutes at most), however long
# the steps below take on a slow guest.
bpsleep -w 600000 &
sleeper=$!
# Wait until the sleeper is inside: it entered and has not left.
bp_wait_inside zz pp
n=$(bp_inside zz pp)
echo "# tasks inside: $n"
ktap_check "sleeper_is_inside" sh -c "test $n -eq 1 && kill -0 $sleeper"
ktap_check "detach_while_it_sleeps" bp_ctl 'unregister zz --sync\n'
ktap_check "nothing_attached" test "$(direct_attached)" -eq "$base"
# The module pins itself while a task is inside: rmmod is refused (EWOULDBLOCK),
# it does not free the text under the sleeper.
refcnt() { cat /sys/module/batchprobe/refcnt; }
ktap_check "module_pinned_while_inside" test "$(refcnt)" -ge 1
ktap_check "rmmod_refused_while_inside" sh -c '! rmmod batchprobe 2>/dev/null && grep -q "^batchprobe " /proc/modules'
# The sleeper is still asleep: detach and the refused rmmod did not cut its
# ppoll short. Woken now, it returns through the trampoline: 0 only when
# SIGUSR1 ended its ppoll (3 had its 10 minutes run out; a fault kills it).
ktap_check "sleeper_still_asleep" kill -0 $sleeper
kill -USR1 $sleeper
# (wait runs here, not in ktap_check's subshell: only this shell can.)
wait $sleeper
ktap_check "sleeper_returns_through_the_trampoline" test $? -eq 0
# The pin goes once no task is inside (a poll backing off from 100 ms to
# 5 s, after an RCU-tasks grace period for the trampoline's last
# instructions).
ktap_check "pin_released_after_the_sleeper_left" bp_wait_unpinned
ktap_check "rmmod" rmmod batchprobe
ktap_finish
