#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a call asleep in an exit set's function across a switch to the counting trampoline and back writes its one return record, with its whole duration
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF
#
# An exit set whose ppoll line writes return records ($retval, $comm); a
# sleeper enters ppoll's body through the exit trampoline and stays there
# (bpsleep -w: until SIGUSR1). `direct SET count` moves the set to the
# counting trampoline and `direct SET exit` back while it sleeps. Woken,
# its call returns through the exit trampoline it entered by (its frame is
# on its stack): the slot it was counted in is still the function's, so
# its return counts and writes its record: one, interrupted, and a
# duration at least as long as the sleeper was seen inside.
. ./bp_lib.sh
T=/sys/kernel/tracing
have() { grep -qx "$1" $T/available_filter_functions; }
first_of() { for f; do have "$f" && { echo "$f"; return; }; done; }
SLEEP=$(first_of __x64_sys_ppoll __do_sys_ppoll)
[ -n "$SLEEP" ] || bp_skip_all "no traceable ppoll function"
ktap_plan 13
bpsleep=$(command -v bpsleep)

bp_load
ktap_check "exit_set_with_records" bp_ctl "d:rs/pp $SLEEP ret=\$retval c=\$comm\ncreate rs --exit\nenable rs\n"
echo 0 > $T/tracing_on
echo > $T/trace
echo 'comm == "bpsleep"' > $T/events/rs/pp/filter
echo 1 > $T/events/rs/pp/enable
echo 1 > $T/tracing_on
"$bpsleep" -w 600000 &
sleeper=$!
ktap_check "sleeper_inside" bp_wait_inside rs pp
ktap_check "switch_to_count" bp_ctl 'direct rs count\n'
ktap_check "mode_count" test "$(bp_stats_field rs mode)" = count
ktap_check "switch_back_to_exit" bp_ctl 'direct rs exit\n'
usleep 300000
kill -USR1 $sleeper
wait $sleeper
echo 0 > $T/tracing_on
echo 0 > $T/events/rs/pp/enable
recs=$(grep -v '^#' $T/trace | sed -n 's/.* pp: //p')
echo "$recs" | sed 's/^/# /'
ktap_check "one_record" test "$(echo "$recs" | grep -c .)" = 1
# Interrupted: -EINTR, or -ERESTARTNOHAND as the syscall leaves it.
ktap_check "interrupted" sh -c "echo '$recs' | grep -Eq ' ret=-(4|514) '"
ktap_check "its_comm" sh -c "echo '$recs' | grep -q 'c=\"bpsleep\"'"
d=$(echo "$recs" | sed -n 's/.* duration=\([0-9]*\)$/\1/p')
echo "# duration: ${d:-none} ns"
ktap_check "whole_duration" test "${d:-0}" -ge 300000000
ktap_check "unregister" bp_ctl 'unregister rs --sync\n'
ktap_check "unpinned" bp_wait_unpinned
ktap_check "rmmod" rmmod batchprobe
ktap_finish
