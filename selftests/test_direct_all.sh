#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: one direct set on every function ftrace can trace
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
# speed: slow
#
# Every function ftrace can trace as one direct set (the issue's "as many as
# the kernel has"): one attach, calls counted while the whole kernel runs
# through the trampoline (under lockdep and RCU checking in the test
# kernel; on the distro kernel the set includes __rcu_read_lock and the
# scheduler), and one detach that leaves no direct caller behind.
. ./bp_lib.sh
ktap_plan 10
T=/sys/kernel/tracing
base=$(direct_attached)
# Core kernel: before insmod. A glob leaves out names with a '.' unless it
# has one itself (symname.rs: glob_candidate): GCC's clones and split parts
# (foo.part.0, foo.constprop.0, foo.isra.0), about 1200 on Debian's
# GCC-built 7.3 image (on the clang-built kernels this count was already all).
total=$(grep -vc '\.' $T/available_filter_functions)
grep -v '\.' $T/available_filter_functions | sort > /tmp/bp-all-ftrace
dotted=$(grep -c '\.' $T/available_filter_functions)

bp_load
ktap_check "attach_every_traceable_function" bp_ctl 'd:all/ * max=1000000\ncreate all\nenable all\n'
got=$(bp_field all direct)
echo "# $got of $total ftrace-able functions attached ($dotted with a '.' in the name left out);" \
    "register $(($(bp_timing all register_ns) / 1000000)) ms, attach $(($(bp_timing all attach_ns) / 1000000)) ms"
ktap_check "attached_every_one" test "$got" -eq "$total"
# The very functions ftrace lists, not only as many: batchprobe tells them
# from each text symbol's first instruction and one filter update per batch
# (src/ftrace/sites.rs), and ftrace's own list is the oracle.
awk '$1 == "set" { s = ($2 == "all"); next } s && $1 == "direct" { sub(/\+0$/, "", $3); print $3 }' \
    $BP_DEBUGFS/stats | sort > /tmp/bp-all-set
ktap_check "the_functions_ftrace_lists" cmp -s /tmp/bp-all-ftrace /tmp/bp-all-set
ktap_check "ftrace_sees_every_one" test "$(direct_attached)" -eq $((base + got))
bphit 100 > /dev/null
ktap_check "counts_calls" test "$(bp_field all hits)" -ge 100
# Whatever the handler's own path could call is in the set too, and counted.
if grep -qx '__rcu_read_lock' $T/available_filter_functions; then
    ktap_check "rcu_read_lock_in_set_and_counted" test "$(bp_probe_hits all __rcu_read_lock)" -gt 0
else
    ktap_skip "rcu_read_lock_in_set_and_counted" "rcu_read_lock() is inline on this kernel"
fi
ktap_check "detach_all" bp_ctl 'unregister all --sync\n'
ktap_check "no_direct_caller_left" test "$(direct_attached)" -eq "$base"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
