#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: one direct set with entry and exit on 1001 functions: exact entry and exit counts, the return value userspace saw
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF
#
# `create --exit`: the entry + exit trampoline on getppid and the first 1000
# other functions it can call, attached in one pass (one ftrace_ops, one
# register_ftrace_direct). getppid called 1000 times: 1000 entries, 1000
# exits, and the last return value recorded is the caller's parent pid.
# One detach leaves no direct caller behind.
. ./bp_lib.sh
ktap_plan 12
base=$(direct_attached)

bp_load
# Not x64_sys_call, the syscall dispatcher: this test's ancestors (the
# kselftest runner's shells) go back into wait4 through it while the set is
# attached, and stay there until this test ends, so the module could not
# let go of its pin on itself (rmmod: EWOULDBLOCK) before then.
ktap_check "attach_1001_with_exit" bp_ctl 'd:ex/pid '"${BP_GETPPID}"'\nd:ex/ * max=1000 skip=x64_sys_call\ncreate ex --exit\nenable ex\n'
ktap_check "set_has_1001_direct" test "$(bp_field ex direct)" = 1001
ktap_check "mode_is_exit" test "$(bp_stats_field ex mode)" = exit
ktap_check "ftrace_sees_1001_direct_callers" test "$(direct_attached)" -eq $((base + 1001))
echo "# skipped on the way to 1000: $(bp_field ex skipped), of them $(grep -c '^  skipped .* errno=-95' $BP_DEBUGFS/stats) by the prototype rule (EOPNOTSUPP), the others not ftrace-able"
# Raw values in stats (kptr_restrict 1, read by root with CAP_SYSLOG).
echo 1 > /proc/sys/kernel/kptr_restrict
e0=$(bp_exit_field ex pid hits) x0=$(bp_exit_field ex pid exits)
# This shell calls bphit, so getppid returns this shell's pid.
bphit 1000 > /dev/null
e1=$(bp_exit_field ex pid hits) x1=$(bp_exit_field ex pid exits)
ret=$(bp_exit_field ex pid last_ret)
echo "# getppid: entries $e0 -> $e1, exits $x0 -> $x1, last_ret 0x$ret, shell pid $$"
ktap_check "entries_exactly_1000" test $((e1 - e0)) -eq 1000
ktap_check "exits_exactly_1000" test $((x1 - x0)) -eq 1000
ktap_check "return_value_is_what_userspace_saw" test "$(bp_hex "$ret")" -eq "$$"
# Functions with more entries than exits: a task is inside (asleep).
echo "# functions with tasks inside:"
awk '$1 == "set" { s = ($2 == "ex") } s && $1 == "direct"' $BP_DEBUGFS/stats | tr '=' ' ' |
    awk '{ h = $5; x = $11; if (h != x) print "#  ", $2, "entries", h, "exits", x }'
ktap_check "detach_sync" bp_ctl 'unregister ex --sync\n'
ktap_check "detached_all" test "$(direct_attached)" -eq "$base"
ktap_check "unpinned" bp_wait_unpinned
ktap_check "rmmod" rmmod batchprobe
ktap_finish
