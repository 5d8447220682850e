#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: an exit set's aggregates (--hist, --errors): each call's duration in its log2 bucket, error returns counted by errno, exact
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF
#
# `create --exit --hist --errors` on ppoll (bpsleep sleeps in it, nothing
# else in the guest calls it), openat (long), the int-returning mkdir
# helper (do_mkdirat on 6.12, filename_mkdirat on 7.3) and the pointer-
# returning open helper (do_filp_open, do_file_open). Three 70-ms sleeps
# land in the [2^26, 2^27) ns bucket (a sleep is never shorter than asked,
# and is no longer than bptime measured it from outside: the check is made
# when that is below 2^27 ns); an openat of a missing file made to fail 4
# times counts ENOENT 4 times in the syscall and in the pointer-returning
# helper; mkdirat("/") 5 times counts EEXIST 5 times in the int-returning one
# (an int's error, whatever rax's upper half holds). Then the same set
# with --errors alone (no clock read: the untimed token) counts the same,
# and shows no histogram. Refusals: --hist without --exit.
. ./bp_lib.sh

have() { grep -qx "$1" /sys/kernel/tracing/available_filter_functions; }
first_of() { for f; do have "$f" && { echo "$f"; return; }; done; }
mk=$(first_of do_mkdirat filename_mkdirat)
op=$(first_of do_filp_open do_file_open)
sys_openat=$(first_of __x64_sys_openat __do_sys_openat)
sys_ppoll=$(first_of __x64_sys_ppoll __do_sys_ppoll)
if [ -z "$mk" ] || [ -z "$op" ] || [ -z "$sys_openat" ] || [ -z "$sys_ppoll" ]; then
    bp_skip_all "no traceable mkdir, open or ppoll function (do_mkdirat, filename_mkdirat; do_filp_open, do_file_open; __x64_sys_openat; __x64_sys_ppoll)"
fi
ktap_plan 21
base=$(direct_attached)
# A key=value of the `hist` or `errors` line of probe NAME of SET in stats.
agg() {
    awk -v s="$1" -v k="$2" -v n="$3" '$1 == "set" { cur = $2; next } cur == s && $1 == k && $2 == n' \
        "$BP_DEBUGFS/stats" | tr ' ' '\n' | sed -n "s/^$4=//p"
}
# Absolute paths: no PATH search (failed execs) on the way.
bpopen=$(command -v bpopen) bpsleep=$(command -v bpsleep) bptime=$(command -v bptime)
bpmkdir=$(command -v bpmkdir)
lines() { printf 'd:%s/pp %s\nd:%s/op %s\nd:%s/mk %s\nd:%s/fo %s\n' "$1" "$sys_ppoll" "$1" "$sys_openat" "$1" "$mk" "$1" "$op"; }

bp_load
bp_expect_err "hist_without_exit_einval" 22 "d:ag/pp $sys_ppoll\ncreate ag --hist\n"
ktap_check "hist_needs_exit" grep -q -- "--hist and --errors count returns: they need --exit" "$BP_DEBUGFS/last_error"
ktap_check "create_hist_errors" bp_ctl "$(lines ag)\ncreate ag --exit --hist --errors\nenable ag\n"
longest=0
for i in 1 2 3; do
    t=$("$bptime" "$bpsleep" 70)
    [ "$t" -gt "$longest" ] && longest=$t
done
"$bpopen" /no/such/file 4 > /dev/null
"$bpmkdir" / 5 > /dev/null
# The counts stop moving before they are read: the tools that read them
# open files too.
bp_ctl 'disable ag\n'
grep -E "^  direct|^    (hist|errors)" "$BP_DEBUGFS/stats" | sed 's/^/# /'
echo "# longest sleep seen from outside: $longest ns"
ktap_check "three_sleeps_timed" test "$(agg ag hist pp count)" = 3
if [ "$longest" -lt 134217728 ]; then
    ktap_check "sleeps_in_the_70ms_bucket" test "$(agg ag hist pp log2_ns)" = 67108864:3
    ktap_check "p99_below_2^27" test "$(agg ag hist pp p99_lt_ns)" = 134217728
else
    ktap_skip "sleeps_in_the_70ms_bucket" "a sleep took $longest ns from outside, past the bucket"
    ktap_skip "p99_below_2^27" "a sleep took $longest ns from outside, past the bucket"
fi
ktap_check "mean_at_least_70ms" test "$(agg ag hist pp mean_ns)" -ge 70000000
ktap_check "openat_ENOENT_4" test "$(agg ag errors op ENOENT)" = 4
ktap_check "pointer_ENOENT_4" test "$(agg ag errors fo ENOENT)" = 4
ktap_check "int_EEXIST_5" test "$(agg ag errors mk EEXIST)" = 5
ktap_check "ppoll_no_errors" test -z "$(agg ag errors pp total)"
ktap_check "unregister_ag" bp_ctl 'unregister ag --sync\n'

ktap_check "create_errors_only" bp_ctl "$(lines ae)\ncreate ae --exit --errors\nenable ae\n"
"$bpsleep" 1
"$bpopen" /no/such/file 3 > /dev/null
"$bpmkdir" / 2 > /dev/null
bp_ctl 'disable ae\n'
grep -E "^    (hist|errors)" "$BP_DEBUGFS/stats" | sed 's/^/# /'
ktap_check "untimed_exits_counted" test "$(bp_exit_field ae pp exits)" = 1
ktap_check "no_histogram" test -z "$(agg ae hist pp count)"
ktap_check "untimed_ENOENT_3_EEXIST_2" test "$(agg ae errors op ENOENT)/$(agg ae errors fo ENOENT)/$(agg ae errors mk EEXIST)" = 3/3/2
ktap_check "unregister_ae" bp_ctl 'unregister ae --sync\n'
ktap_check "detached_all" test "$(direct_attached)" -eq "$base"
ktap_check "unpinned" bp_wait_unpinned
ktap_check "rmmod" rmmod batchprobe
ktap_finish
