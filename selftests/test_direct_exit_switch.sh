#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a live direct set switches to the exit trampoline and back (modify_ftrace_direct) without missing a call
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF
#
# `direct SET exit` moves a live entry-only set to the entry + exit
# trampoline once every function passes the prototype rule; `direct SET
# count` moves it back. Entries keep counting across both switches; exits
# count only while the exit trampoline is in place.
. ./bp_lib.sh
ktap_plan 11
f() { v=$(bp_exit_field sw pid "$1"); echo "${v:-0}"; }

bp_load
ktap_check "entry_only_set" bp_ctl 'd:sw/pid '"${BP_GETPPID}"'\nd:sw/pgid __x64_sys_getpgid\ncreate sw\nenable sw\n'
bphit 100 > /dev/null
ktap_check "counts_entries" test "$(f hits)" -eq 100
ktap_check "no_exits_shown_before" test -z "$(bp_exit_field sw pid exits)"
ktap_check "switch_to_exit" bp_ctl 'direct sw exit\n'
ktap_check "mode_exit" test "$(bp_stats_field sw mode)" = exit
bphit 100 > /dev/null
ktap_check "entries_and_exits_count" test "$(f hits)/$(f exits)" = 200/100
ktap_check "switch_back_to_count" bp_ctl 'direct sw count\n'
bphit 50 > /dev/null
ktap_check "entries_only_again" test "$(f hits)/$(f exits)" = 250/100
ktap_check "unregister" bp_ctl 'unregister sw --sync\n'
bp_wait_unpinned
ktap_check "rmmod" rmmod batchprobe
ktap_finish
