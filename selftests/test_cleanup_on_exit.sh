#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a program that loads batchprobe with bp_load and ends early (an exit half way, the runner's SIGTERM) leaves nothing behind, and keeps its exit status
# requires: CONFIG_KPROBES, CONFIG_KPROBE_EVENTS
#
# Every program loads the module through bp_load (bp_lib.sh), which makes
# bp_cleanup run however the program ends: a program that stops half way
# (a failed step, or kselftest's timeout killing it) must not leave the
# module, its sets or tracefs' kprobe events to the programs after it. Two
# children stop with a live, enabled set and a kprobe event: one exits
# with 3, one is sent SIGTERM while it sleeps. After each, the module and
# every probe are gone; the first child's status is still 3.
. ./bp_lib.sh
ktap_plan 10
T=/sys/kernel/tracing
kp_base=$(kprobes_registered)
child=/tmp/bp-cleanup-child.sh
# The child's KTAP lines go to its own log, not into this program's.
cat > $child << EOF
cd $PWD
. ./bp_lib.sh
bp_load
bp_ctl 'p!:half/ vfs_read\nr!:half/r vfs_write\ncreate half\nenable half\n' || exit 9
echo 'p:kprobes/bp_cleanup_child vfs_read' >> $T/kprobe_events || exit 9
echo 1 > $T/events/kprobes/bp_cleanup_child/enable || exit 9
echo ready > /tmp/bp-cleanup-ready
# A trapped signal waits for a foreground command to end, not for wait.
if [ "\$1" = sleep ]; then
    sleep 600 &
    echo \$! > /tmp/bp-cleanup-sleep
    wait
fi
exit 3
EOF

sh $child exit > /tmp/bp-cleanup-exit.log 2>&1
rc=$?
ktap_check "early_exit_keeps_its_status" test "$rc" -eq 3
ktap_check "module_unloaded_after_exit" test ! -d /sys/module/batchprobe
ktap_check "no_kprobe_left_after_exit" test "$(kprobes_registered)" -eq "$kp_base"
ktap_check "no_kprobe_event_left_after_exit" test -z "$(cat $T/kprobe_events)"
ktap_check "cleanup_said_what_it_undid" grep -q '^# cleanup: unregister half' /tmp/bp-cleanup-exit.log

rm -f /tmp/bp-cleanup-ready /tmp/bp-cleanup-sleep
sh $child sleep > /tmp/bp-cleanup-term.log 2>&1 &
pid=$!
i=0
while [ ! -e /tmp/bp-cleanup-sleep ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
ktap_check "child_ready_with_a_live_set" test -d /sys/module/batchprobe
kill -TERM $pid
wait $pid
rc=$?
ktap_check "killed_child_exited_143" test "$rc" -eq 143
ktap_check "module_unloaded_after_sigterm" test ! -d /sys/module/batchprobe
ktap_check "no_kprobe_left_after_sigterm" test "$(kprobes_registered)" -eq "$kp_base"
ktap_check "no_kprobe_event_left_after_sigterm" test -z "$(cat $T/kprobe_events)"
kill "$(cat /tmp/bp-cleanup-sleep)" 2>/dev/null
rm -f $child /tmp/bp-cleanup-ready /tmp/bp-cleanup-sleep
ktap_finish
