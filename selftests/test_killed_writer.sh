#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a writer killed (kill -9) while its create walks a huge batch is interrupted, not run to the end, and leaves nothing behind: the write fails with EINTR (last_error says so), no set, nothing staged, no probe, the registry is free for the next write, and the module unloads
# requires: CONFIG_KPROBES
#
# 20,000 lines of vfs_* make one create offer every text symbol to 20,000
# globs: minutes under TCG, with the registry lock held. Every long loop
# of a write reschedules and checks for a fatal signal, and gives up with
# EINTR; the write is then rolled back as any failed write is. The cap is
# lowered (max_set_probes) so that the probes made before the kill stay
# few: what is timed is the walk, not memory.
. ./bp_lib.sh
ktap_plan 10
uptime_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }

# Stalls, lockups and warnings this test adds to the kernel log (not those
# of the programs before it).
STALLS='soft lockup|rcu_.*self-detected stall|detected stalls'
w0=$(bp_kernel_warnings "$STALLS")
bp_load insmod max_set_probes=20000
kp0=$(kprobes_registered)
awk 'BEGIN { for (i = 0; i < 20000; i++) print "p:big/ vfs_*"; print "create big" }' > /tmp/killed_batch.txt
bpwrite "$BP_CTL" < /tmp/killed_batch.txt 2> /tmp/killed_batch.err &
writer=$!
bpsleep 5000
if ! kill -0 "$writer" 2> /dev/null; then
    ktap_fail "writer_still_running_after_5_s" "the batch ended within 5 s: $(cat /tmp/killed_batch.err)"
else
    ktap_pass "writer_still_running_after_5_s"
fi
t0=$(uptime_cs)
kill -9 "$writer"
wait "$writer"
st=$?
t1=$(uptime_cs)
# How long the kill took is printed, not judged (a pass/fail bound on time
# failed on debug-7.3 in CI: the module logged the EINTR within 0.5 s, the
# guest's shell saw the writer gone 13 s later). That the write was cut
# short, not walked to its end, is what last_error's EINTR at a line shows.
ktap_print_msg "the killed writer returned in $(( (t1 - t0) * 10 )) ms"
ktap_check "writer_died_of_the_kill" test "$st" -eq 137
echo "# $(cat $BP_DEBUGFS/last_error)"
# Where the kill lands depends on the kernel's speed: in the create (line
# 20001) on most flavors, while the lines are still checked on a KASAN one.
ktap_check "last_error_says_eintr" grep -qxE \
    "line [0-9]+: (create big|p:big/ vfs_\\*): interrupted: the task was killed \\(EINTR\\)" $BP_DEBUGFS/last_error
ktap_check "no_set_big" sh -c "! grep -q '^big ' $BP_DEBUGFS/sets"
ktap_check "nothing_staged" sh -c "! grep -q 'staged' $BP_DEBUGFS/sets"
ktap_check "no_kprobe_left" test "$(kprobes_registered)" -eq "$kp0"
ktap_check "next_write_goes_through" bp_ctl 'p:after/ vfs_read\ncreate after\nunregister after --sync\n'
ktap_check "no_stall_lockup_or_warning" bp_no_new_warnings "$w0" "$STALLS"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
