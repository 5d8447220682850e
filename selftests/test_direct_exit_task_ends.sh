#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a task that ends inside a function the exit trampoline called no longer counts as inside; one asleep there still does, and unload follows the last real one
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF, CONFIG_KPROBES
#
# A task killed by a signal dies in get_signal() -> do_group_exit(): it
# never returns from get_signal's body, so the exit trampoline never counts
# it out. batchprobe counts such bodies gone when the task reaches
# do_exit() (rust/exit_tasks.c), so its pin on itself drops once the last
# task really inside has left, instead of staying until reboot. It must
# not drop early either: a task asleep inside (ppoll) holds it until it
# returns. The sleeper stays inside ppoll until the test wakes it (SIGUSR1):
# a fixed sleep raced the steps on a slow guest (debug-7.3 in CI: it had
# returned before the rmmod check, 2026-12-03).
. ./bp_lib.sh
ktap_plan 14

bp_load
ktap_check "exit_set_on_get_signal_and_ppoll" \
    bp_ctl 'd:gs/g get_signal\nd:gs/pp __x64_sys_ppoll\ncreate gs --exit\nenable gs\n'
# The sleeper: inside ppoll's body until SIGUSR1 (10 minutes at most).
bpsleep -w 600000 &
sleeper=$!
ktap_check "sleeper_inside_ppoll" bp_wait_inside gs pp
# The victim: asleep in nanosleep, killed: it dies inside get_signal.
sleep 100 &
victim=$!
usleep 300000
kill -9 $victim
wait $victim 2>/dev/null
gone=$(bp_stats_header exit_gone)
echo "# stats: $(head -1 $BP_DEBUGFS/stats)"
# Entries minus returns of get_signal (the shell itself goes through
# get_signal for every SIGCHLD).
n=$(bp_inside gs g)
echo "# get_signal: entered and never left: $n"
ktap_check "victim_counted_gone" test "${gone:-0}" -ge 1
ktap_check "get_signal_entered_more_than_left" test "$n" -ge 1
ktap_check "sleeper_still_inside" kill -0 $sleeper
ktap_check "unregister" bp_ctl 'unregister gs --sync\n'
# The sleeper is still inside ppoll's body: the pin holds.
ktap_check "pinned_while_sleeper_inside" test "$(cat /sys/module/batchprobe/refcnt)" -ge 1
ktap_check "rmmod_refused_while_sleeper_inside" sh -c '! rmmod batchprobe 2>/dev/null && grep -q "^batchprobe " /proc/modules'
kill -USR1 $sleeper
wait $sleeper
ktap_check "sleeper_returned_when_woken" test $? -eq 0
# Now no task is inside: the dead victim must not hold the pin.
ktap_check "pin_released_after_the_last_real_task" bp_wait_unpinned 30
inside=$(bp_stats_header exit_inside)
echo "# after: $(head -1 $BP_DEBUGFS/stats)"
ktap_check "none_inside" test "$inside" = 0
ktap_check "still_counted_gone" test "$(bp_stats_header exit_gone)" -ge 1
ktap_check "rmmod" rmmod batchprobe
ktap_finish
