#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a task that ends inside an exit body while kprobes are disarmed system-wide is still counted gone, and the do_exit() callback exists only from the first exit set to rmmod
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF, CONFIG_KPROBES
#
# batchprobe counts the bodies a task dies inside from a callback at
# do_exit()'s entry (rust/exit_tasks.c). It was a kprobe, and
# `echo 0 > /sys/kernel/debug/kprobes/enabled` (disarm_all_kprobes())
# silenced it: a task killed inside get_signal() meanwhile was never counted
# gone, and the module stayed pinned until reboot (rmmod: EWOULDBLOCK). It
# is now an ftrace_ops of its own, which kprobes' switch does not reach,
# registered with the first exit set rather than at load (every task exit
# paid for it), and gone at rmmod.
. ./bp_lib.sh
bp_skip_if_locked_down "it disarms kprobes through debugfs' kprobes/enabled, which lockdown refuses to open"
ktap_plan 11
T=/sys/kernel/tracing
KP=/sys/kernel/debug/kprobes/enabled
# Ftrace users of do_exit: enabled_functions lists each traced function once,
# with the number of ftrace_ops on it in parentheses ("do_exit (1) R ...").
do_exit_traced() {
    n=$(sed -n 's/^do_exit (\([0-9]*\)).*/\1/p' $T/enabled_functions | head -1)
    echo "${n:-0}"
}
base=$(do_exit_traced)

bp_load
ktap_check "no_do_exit_callback_before_an_exit_set" test "$(do_exit_traced)" -eq "$base"
ktap_check "exit_set_on_get_signal" bp_ctl 'd:gs/g get_signal\ncreate gs --exit\nenable gs\n'
ktap_check "do_exit_callback_with_the_first_exit_set" test "$(do_exit_traced)" -eq $((base + 1))
ktap_check "kprobes_disarmed" sh -c "echo 0 > $KP"
# The victim, asleep in nanosleep, is killed: it dies inside get_signal.
sleep 100 &
victim=$!
usleep 300000
kill -9 $victim
wait $victim 2>/dev/null
echo 1 > $KP
echo "# stats: $(head -1 $BP_DEBUGFS/stats)"
ktap_check "victim_counted_gone_while_kprobes_were_disarmed" test "$(bp_stats_header exit_gone)" -ge 1
ktap_check "unregister" bp_ctl 'unregister gs --sync\n'
ktap_check "pin_released" bp_wait_unpinned 30
ktap_check "none_inside" test "$(bp_stats_header exit_inside)" = 0
ktap_check "rmmod" rmmod batchprobe
ktap_check "do_exit_callback_gone_after_rmmod" test "$(do_exit_traced)" -eq "$base"
ktap_finish
