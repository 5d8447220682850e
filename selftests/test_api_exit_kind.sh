#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the in-kernel API's entry + exit kind (BATCHPROBE_DIRECT_EXIT): the C sample client's handler gets each call at entry and at return, with the return value and the duration, counts exact
# requires: bpclient_c.ko, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF
#
# bpclient_c loaded with exits=getppid,ppoll: beside its main set (one
# direct call among its probes) a second set, bpclient_c.exits,
# of two BATCHPROBE_DIRECT_EXIT targets on the exit trampoline. getppid()
# called 1000 times: 1000 entries and 1000 returns delivered, the last
# return value the caller's parent (this shell); a 70-ms ppoll: one return
# whose duration is at least 70 ms and no more than bptime saw from
# outside; every hit as the header says (kind, flags, zeroed fields).
# Then the set retires, the module lets go of its pin, both unload.
. ./bp_lib.sh
bp_skip_if_locked_down "the C client is driven through its debugfs files (control, targets), which lockdown refuses to open for writing"
ktap_plan 15
ctl() { printf "$1" | bpwrite /sys/kernel/debug/bpclient_c/control; }
# ex N KEY: a key=value of target N in bpclient_c's exits file.
ex() { awk -v n="$1" '$1 == n' /sys/kernel/debug/bpclient_c/exits | tr ' ' '\n' | sed -n "s/^$2=//p"; }
base=$(direct_attached)

bp_load insmod_batchprobe
ktap_check "insmod_client_with_exits" insmod "$BP_CLIENT_C" "exits=$BP_GETPPID,__x64_sys_ppoll"
ktap_check "exit_set_named_by_owner" test "$(bp_state bpclient_c.exits)/$(bp_stats_field bpclient_c.exits mode)" = enabled/exit
ktap_check "three_more_direct_callers" test "$(direct_attached)" -eq $((base + 3))
e0=$(ex 0 entries) r0=$(ex 0 returns)
bphit 1000 > /dev/null
ktap_check "entries_exactly_1000" test $(($(ex 0 entries) - e0)) -eq 1000
ktap_check "returns_exactly_1000" test $(($(ex 0 returns) - r0)) -eq 1000
ktap_check "return_value_is_what_userspace_saw" test "$(ex 0 last_ret)" -eq "$$"
t=$(bptime "$(command -v bpsleep)" 70)
ns=$(ex 1 last_ns)
echo "# ppoll: returns $(ex 1 returns), last duration $ns ns, seen from outside $t ns"
ktap_check "one_sleep_returned" test "$(ex 1 returns)" -eq 1
ktap_check "duration_of_the_sleep" test "$ns" -ge 70000000 -a "$ns" -le "$t"
ktap_check "every_hit_as_the_header_says" test "$(ex 0 bad)/$(ex 1 bad)" = 0/0
ktap_check "batchprobe_counted_the_same" test "$(bp_exit_field bpclient_c.exits "$BP_GETPPID" exits)" -eq "$(ex 0 returns)"
ktap_check "retire_exits" ctl 'retire_exits'
ctl 'retire'
ktap_check "rmmod_client" rmmod bpclient_c
# The client's reference went with it: what is left is the exit pin.
ktap_check "unpinned" bp_wait_unpinned
ktap_check "rmmod_batchprobe" rmmod batchprobe
ktap_finish
