#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: one direct set on 1001 functions: attached in one pass, counts calls, detaches every one
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
#
# ftrace-direct sets: one trampoline on 1000+ functions (getppid, and the
# first 1000 ftrace can trace) attached in one pass; ftrace sees each
# direct caller, the set counts calls, and one detach leaves no direct
# caller behind and counts nothing more.
. ./bp_lib.sh
ktap_plan 9
base=$(direct_attached)

bp_load
ktap_check "attach_1001_functions" bp_direct_1001 big
ktap_check "set_has_1001_direct" test "$(bp_field big direct)" = 1001
ktap_check "ftrace_sees_1001_direct_callers" test "$(direct_attached)" -eq $((base + 1001))
bphit 100 > /dev/null
ktap_check "counts_calls" test "$(bp_probe_hits big pid)" -ge 100
ktap_check "detach_sync" bp_ctl 'unregister big --sync\n'
ktap_check "detached_all" test "$(direct_attached)" -eq "$base"
frozen=$(bp_field big hits)
bphit 50 > /dev/null
ktap_check "no_counts_after_detach" test "$(bp_field big hits)" = "$frozen"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
