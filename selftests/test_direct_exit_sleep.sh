#!/bin/sh
# description: a task asleep inside a function the exit trampoline called returns through it after detach, and unload waits for it
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF
#
# The exit trampoline is on the stack of a task sleeping in the traced
# function's body: the return address of the body is in batchprobe's text.
# Detaching the set must not stop that task from returning through it, and
# the module's text must stay until it has: the module pins itself while a
# task may be inside (rmmod: EBUSY) and lets go once none is and an
# RCU-tasks grace period has passed (src/direct.rs).
. ./bp_lib.sh
bp_need_btf
ktap_plan 11
base=$(direct_attached)

ktap_check "insmod" insmod "$BP_KO"
ktap_check "exit_set_on_nanosleep" bp_ctl 'd:zz/cns __x64_sys_clock_nanosleep\nd:zz/ns __x64_sys_nanosleep\ncreate zz --exit\nenable zz\n'
bptime sleep 3 > /tmp/bp-exit-sleep.ns &
sleeper=$!
# Wait until the sleeper is inside: more entries than exits (usleep here
# sleeps through the same syscalls, and returns).
field() { v=$(bp_exit_field zz "$1" "$2"); echo "${v:-0}"; }
inside() {
    echo $(($(field cns hits) + $(field ns hits) - $(field cns exits) - $(field ns exits)))
}
for i in $(seq 1 50); do
    [ "$(inside)" -ge 1 ] && break
    usleep 100000
done
echo "# tasks inside: $(inside)"
# Other tasks may be asleep in the same syscalls meanwhile (the kselftest
# runner's timeout polls with them): at least the sleeper, still asleep.
ktap_check "sleeper_is_inside" sh -c "test $(inside) -ge 1 && kill -0 $sleeper"
ktap_check "detach_while_it_sleeps" bp_ctl 'unregister zz --sync\n'
ktap_check "nothing_attached" test "$(direct_attached)" -eq "$base"
# The module pins itself while a task is inside: rmmod is refused (EBUSY),
# it does not free the text under the sleeper.
refcnt() { cat /sys/module/batchprobe/refcnt; }
ktap_check "module_pinned_while_inside" test "$(refcnt)" -ge 1
ktap_check "rmmod_refused_while_inside" sh -c '! rmmod batchprobe 2>/dev/null && grep -q "^batchprobe " /proc/modules'
# (wait runs here, not in ktap_check's subshell: only this shell can.)
wait $sleeper
ktap_check "sleeper_returns_through_the_trampoline" test $? -eq 0
ns=$(cat /tmp/bp-exit-sleep.ns); ns=${ns:-0}
echo "# the sleeper slept $((ns / 1000000)) ms"
ktap_check "sleeper_slept_its_time" test "$ns" -ge 3000000000
# The pin goes once no task is inside (a poll backing off from 100 ms to
# 5 s, after an RCU-tasks grace period for the trampoline's last
# instructions).
ktap_check "pin_released_after_the_sleeper_left" bp_wait_unpinned
ktap_check "rmmod" rmmod batchprobe
ktap_finish
