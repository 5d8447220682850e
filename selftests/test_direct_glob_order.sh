#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a direct glob and an explicit line on the same function, in either order
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
#
# A function named on a d: line of its own belongs to that line (its name,
# its counts), whether a glob of the same set that also matches it was
# staged before or after; the glob leaves it alone and does not count it as
# skipped. Two explicit lines on one function stay an error (EBUSY).
. ./bp_lib.sh
ktap_plan 8
EBUSY=16

bp_load
ktap_check "glob_first_then_explicit" bp_ctl 'd:g1/ '"${BP_SYS}getpp*"'\nd:g1/mine '"${BP_GETPPID}"'\ncreate g1\nenable g1\n'
bphit 10 > /dev/null
ktap_check "explicit_name_counts" test "$(bp_probe_hits g1 mine)" -ge 10
ktap_check "glob_did_not_count_it_skipped" test "$(bp_field g1 skipped)" -eq 0
ktap_check "retire_g1" bp_ctl 'unregister g1 --sync\n'
ktap_check "explicit_first_then_glob" bp_ctl 'd:g2/mine '"${BP_GETPPID}"'\nd:g2/ '"${BP_SYS}getpp*"'\ncreate g2\n'
bp_expect_err "two_explicit_lines_ebusy" "$EBUSY" 'd:g3/a '"${BP_GETPID}"'\nd:g3/b '"${BP_GETPID}"'\ncreate g3\n'
ktap_check "rmmod" rmmod batchprobe
ktap_finish
