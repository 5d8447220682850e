#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: an unrelated module unloads while a long control write runs:
#   the module notifier knows without the registry lock that the module owns
#   no set, so rmmod returns while the batch still holds the lock, in well
#   under the batch's time (it used to sleep in D state behind the batch)
# requires: bp_foreign.ko (selftests/modules), CONFIG_KPROBES
# speed: slow
. ./bp_lib.sh
ktap_plan 9

bp_load
ktap_check "insmod_unrelated_module" insmod "$BP_FOREIGN"
# One write that holds the registry lock for seconds under TCG: a marker
# set of one kprobe, then up to 1024 (256 on the debug kernels, where each
# costs several times as much: bp_sized) kprobes (p!: kprobes, at +0 on
# ftrace's call site) on the sysfs and proc show functions, registered,
# then enabled: each arming is a text update of its own. Cold functions:
# probes on hot ones (a *+5 glob) slowed the debug kernel's whole guest to
# a crawl. The write holds the lock from its first command to its last.
printf 'p!:mark/ %s\ncreate mark\np!:big/ *_show max=%d\ncreate big\nenable big\n' \
    "$BP_GETPPID" "$(bp_sized 1024)" > /tmp/rmmod_batch.txt
(bptime bpwrite "$BP_CTL" < /tmp/rmmod_batch.txt > /tmp/rmmod_batch.ns 2> /tmp/rmmod_batch.err
    echo $? > /tmp/rmmod_batch.rc) &
batch=$!
# Inside the batch: once the kernel lists the marker's kprobe, the write
# holds the registry lock and has all of the big set still to do (its
# create, 1024 registrations and their events, and its enable, the
# arming: seconds under TCG, less on real CPUs; polled, not slept, so that a fast machine
# overlaps too). Waiting for the big set's first kprobe instead left only
# what follows it, which a CI run once finished between two polls.
kp0=$(kprobes_registered)
while kill -0 "$batch" 2> /dev/null && [ "$(kprobes_registered)" -le "$kp0" ]; do :; done
if kill -0 "$batch" 2> /dev/null; then
    started_inside=1
    ktap_pass "batch_still_running_at_rmmod"
else
    started_inside=0
    ktap_fail "batch_still_running_at_rmmod" "the batch ended before its marker kprobe was seen registered"
fi
rmmod_ns=$(bptime rmmod bp_foreign)
rmmod_rc=$?
kill -0 "$batch" 2> /dev/null && running=1 || running=0
wait "$batch"
batch_ns=$(cat /tmp/rmmod_batch.ns)
ktap_print_msg "rmmod took $((rmmod_ns / 1000000)) ms, the batch $((batch_ns / 1000000)) ms (rmmod started at the marker's kprobe)"
ktap_check "rmmod_unrelated_module" test "$rmmod_rc" -eq 0
if [ "$started_inside" -eq 1 ]; then
    ktap_check "rmmod_returned_before_the_batch" test "$running" -eq 1
    ktap_check "rmmod_under_half_the_batch_time" test "$((rmmod_ns * 2))" -lt "$batch_ns"
else
    ktap_fail "rmmod_returned_before_the_batch" "no overlap"
    ktap_fail "rmmod_under_half_the_batch_time" "no overlap"
fi
ktap_check "batch_succeeded" sh -c "test \"\$(cat /tmp/rmmod_batch.rc)\" -eq 0 || { cat /tmp/rmmod_batch.err; false; }"
ktap_check "set_enabled" test "$(bp_state big)" = enabled
ktap_check "rmmod" sh -c ". ./bp_lib.sh; bp_ctl 'unregister mark\nunregister big --sync\n' && rmmod batchprobe"
ktap_finish
