#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: direct-call glob members that another tracer holds (a foreign
#   ftrace-direct caller, an IPMODIFY ftrace user) are skipped and named,
#   the rest attach and count, the other tracer keeps working; an explicit
#   line on such a function fails with EBUSY and names it.
# requires: bp_foreign.ko (selftests/modules), CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
. ./bp_lib.sh
ktap_plan 15
calls() { cat /sys/module/bp_foreign/parameters/calls; }
skipped_errno() {
    awk -v s="$1" -v f="$2" '$1 == "set" { cur = $2; next } cur == s && $1 == "skipped" && $2 == f { print $3 }' \
        "$BP_DEBUGFS/stats"
}
bp_load insmod_batchprobe
ktap_check "insmod_foreign_direct_and_ipmodify" insmod "$BP_FOREIGN" direct=vfs_read ipmodify=vfs_write
foreign=$(direct_attached)
ktap_check "glob_over_foreign_functions_attaches" bp_ctl 'd:g/ vfs_*\ncreate g\nenable g\n'
ktap_check "foreign_direct_member_skipped_ebusy" test "$(skipped_errno g vfs_read)" = errno=-16
ktap_check "ipmodify_member_skipped_ebusy" test "$(skipped_errno g vfs_write)" = errno=-16
ktap_check "the_rest_attached" test "$(bp_field g direct)" -gt 10
ktap_check "kernel_agrees_on_direct_calls" bp_agrees_direct "$foreign"
c0=$(calls) h0=$(bp_probe_hits g vfs_open)
cat /proc/version > /dev/null
ktap_check "set_counts_the_rest" test "$(bp_probe_hits g vfs_open)" -gt "$h0"
ktap_check "foreign_direct_still_called" test "$(calls)" -gt "$c0"
bp_expect_err "explicit_foreign_direct_refused" 16 'd:e/r vfs_read\ncreate e\n'
ktap_check "error_names_it" grep -q '^line 1: d:e/r vfs_read: attach failed: another tracer holds it: .* (EBUSY), at create on line 2$' "$BP_DEBUGFS/last_error"
bp_expect_err "explicit_ipmodify_refused" 16 'd:e/w vfs_write\ncreate e\n'
ktap_check "unregister_glob_set" sh -c ". ./bp_lib.sh; bp_ctl 'unregister g --sync\n' && test \$(direct_attached) -eq $foreign"
ktap_check "rmmod_foreign_then_all_attach" sh -c ". ./bp_lib.sh; rmmod bp_foreign && bp_ctl 'd:h/ vfs_rea*\ncreate h\n' && test \"\$(bp_field h skipped)\" = 0 && grep -q '^  direct vfs_read ' $BP_DEBUGFS/stats"
ktap_check "rmmod_batchprobe" rmmod batchprobe
ktap_finish
