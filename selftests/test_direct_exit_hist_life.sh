#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: an exit set's aggregates across a live switch, a task killed inside, and 1000 functions: durations and counts exact, nothing left behind
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF
#
# With --hist the exit trampoline's token is the call's entry time (no
# per-call state anywhere else). A task asleep in ppoll when the set
# switches to the counting trampoline (`direct SET count`) returns through
# the exit trampoline it entered by: its return is counted, with its whole
# duration. A task killed by a signal dies inside get_signal() (it never
# returns from that body: test_direct_exit_task_ends.sh): that call has no
# return and no duration, every return of get_signal has both, and the pin
# drops once no task is inside. Then one set of
# --exit --hist --errors on getppid and the first 1000 other functions the
# exit trampoline takes: getppid called 1000 times is 1000 timed returns.
. ./bp_lib.sh
ktap_plan 18
agg() {
    awk -v s="$1" -v k="$2" -v n="$3" '$1 == "set" { cur = $2; next } cur == s && $1 == k && $2 == n' \
        "$BP_DEBUGFS/stats" | tr ' ' '\n' | sed -n "s/^$4=//p"
}

bp_load
ktap_check "create_hist" bp_ctl "d:hl/pp $(grep -qx __x64_sys_ppoll /sys/kernel/tracing/available_filter_functions && echo __x64_sys_ppoll || echo __do_sys_ppoll)\nd:hl/gs get_signal\ncreate hl --exit --hist\nenable hl\n"
# Inside ppoll until SIGUSR1 (10 minutes at most).
t0=$(cut -d' ' -f1 /proc/uptime)
bpsleep -w 600000 &
sleeper=$!
ktap_check "sleeper_inside" bp_wait_inside hl pp
ktap_check "switch_to_count" bp_ctl 'direct hl count\n'
usleep 300000
kill -USR1 $sleeper
wait $sleeper
t1=$(cut -d' ' -f1 /proc/uptime)
ns=$(agg hl hist pp mean_ns)
echo "# slept across the switch: $ns ns (uptime $t0 -> $t1)"
ktap_check "return_counted_after_switch" test "$(agg hl hist pp count)/$(bp_exit_field hl pp exits)" = 1/1
# At least the 300 ms the test waited after the switch.
ktap_check "its_whole_duration" test "${ns:-0}" -ge 300000000
ktap_check "back_to_exit" bp_ctl 'direct hl exit\n'
# get_signal's calls inside before the kill (the counts still while the
# set is disabled for the read).
bp_ctl 'disable hl\n'
in0=$(bp_inside hl gs)
bp_ctl 'enable hl\n'
# The victim: asleep in nanosleep, killed: it dies inside get_signal.
sleep 100 &
victim=$!
usleep 300000
kill -9 $victim
wait $victim 2>/dev/null
# The shells above take signals through get_signal too: the counts stop
# moving once the set is disabled (a return after that counts nowhere).
bp_ctl 'disable hl\n'
in=$(bp_inside hl gs)
echo "# get_signal: $(bp_exit_field hl gs hits) entries, $(bp_exit_field hl gs exits) returns, $(agg hl hist gs count) timed; inside $in0 -> $in"
ktap_check "victim_never_returned" test "$in" -gt "$in0"
ktap_check "histogram_has_every_return" test "$(agg hl hist gs count)" = "$(bp_exit_field hl gs exits)"
ktap_check "unregister_hl" bp_ctl 'unregister hl --sync\n'
ktap_check "unpinned_after_the_dead" bp_wait_unpinned 30
ktap_check "none_inside" test "$(bp_stats_header exit_inside)" = 0

# As test_direct_exit_counts.sh: not x64_sys_call (the shells above wait
# in wait4 through it, keeping the pin).
ktap_check "attach_1001_hist_errors" bp_ctl 'd:hk/pid '"${BP_GETPPID}"'\nd:hk/ * max=1000 skip=x64_sys_call\ncreate hk --exit --hist --errors\nenable hk\n'
ktap_check "set_has_1001" test "$(bp_field hk direct)" = 1001
bphit 1000 > /dev/null
ktap_check "getppid_1000_timed" test "$(agg hk hist pid count)" -eq 1000
ktap_check "stats_lists_every_function" test "$(awk '$1 == "set" { s = ($2 == "hk") } s && $1 == "direct"' "$BP_DEBUGFS/stats" | wc -l)" -eq 1001
ktap_check "unregister_hk" bp_ctl 'unregister hk --sync\n'
bp_wait_unpinned 30
ktap_check "rmmod" rmmod batchprobe
ktap_finish
