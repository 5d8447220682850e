#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a removed event's records never print as another event's: a retired set's event leaves the buffers before its type id can go to an event made in the same write
# requires: CONFIG_KPROBE_EVENTS, CONFIG_FPROBE
# speed: slow
#
# The kernel hands out the lowest free type id (alloc_trace_event_type()):
# the id of an event just removed goes to the next event made. A removed
# event's records are reset from the buffers that had it enabled; until
# then, an event holding its id would print them as its own, reading its
# fields at the old record's offsets (the review of 2026-12-05, item 5 (b):
# an orphan, a retired set's event still enabled in tracefs, that became
# idle while a create ran was removed in the create's own reg() call, and
# the create's next event took its id before the reset).
#
# Each round: set A's event fills the buffer with records carrying a string
# (enabled in tracefs too, so retiring A leaves it as an orphan); then one
# write retires A and creates B, an event for each of 1,500 functions with
# a numeric argument, never enabled, while A's event is disabled (the orphan
# may go) at a different moment each round, and `trace` is read the whole
# time. No line read may name one of B's events. Eight tracefs instances
# make every add slower (each makes the event's files again), the window
# longer. A race: the rounds are repeated; one that passes proves nothing
# alone.
. ./bp_lib.sh
ktap_plan 7
T=/sys/kernel/tracing
S=$BP_GETPPID
rounds=$(bp_sized 12)

bp_load
trap 'rc=$?; touch /tmp/ir.stop; wait; rmdir $T/instances/bpir* 2>/dev/null; (exit $rc); bp_cleanup' EXIT
for i in 1 2 3 4 5 6 7 8; do mkdir $T/instances/bpir$i; done
echo > $T/trace
echo 1 > $T/tracing_on
done=0 filled=0 named_b=0 unknown=0 orphans_left=0 reused=0
for i in $(seq "$rounds"); do
    bp_ctl "p:ra$i/ev $S c=\$comm:string\ncreate ra$i --events\nenable ra$i\n" || break
    echo 1 > $T/events/ra$i/ev/enable
    bphit 200 > /dev/null
    [ "$(grep -c ' ev: .* c="bphit"' $T/trace)" -ge 200 ] && filled=$((filled + 1))
    aid=$(cat $T/events/ra$i/ev/id)
    rm -f /tmp/ir.stop
    (while [ ! -e /tmp/ir.stop ]; do cat $T/trace; done > /tmp/ir.read) &
    reader=$!
    (sleep "0.$((i % 10))"; echo 0 > $T/events/ra$i/ev/enable) &
    off=$!
    printf 'unregister ra%s\np:rb%s/ * max=1500 x=%%di:u64\ncreate rb%s --events\n' "$i" "$i" "$i" |
        bpwrite $BP_CTL || { touch /tmp/ir.stop; break; }
    wait $off
    bp_ctl 'flush\n'
    touch /tmp/ir.stop
    wait $reader
    # B's events are p_SYM_0; A's is ev (or "Unknown type" once removed,
    # as for any removed event: the kernel prints that too).
    n=$(grep -v '^#' /tmp/ir.read | grep -c ' p_[^ ]*_0: ')
    [ "$n" -gt 0 ] && grep -v '^#' /tmp/ir.read | grep -m 3 ' p_[^ ]*_0: ' | sed "s/^/# round $i: /"
    named_b=$((named_b + n))
    unknown=$((unknown + $(grep -c 'Unknown type' /tmp/ir.read)))
    [ -d $T/events/ra$i ] && orphans_left=$((orphans_left + 1))
    grep -qx "$aid" $T/events/rb$i/*/id 2>/dev/null && reused=$((reused + 1))
    bp_ctl "unregister rb$i --sync\n" || break
    echo > $T/trace
    done=$((done + 1))
done
echo "# $done rounds: A's freed type id went to one of B's events in $reused; $unknown lines read as Unknown type"
ktap_check "every_round_ran" test "$done" -eq "$rounds"
ktap_check "buffer_filled_each_round" test "$filled" -eq "$rounds"
ktap_check "no_record_printed_as_a_new_event" test "$named_b" -eq 0
ktap_check "orphans_gone_after_flush" test "$orphans_left" -eq 0
ktap_check "no_set_left" test -z "$(bp_live_sets)"
rmdir $T/instances/bpir*
ktap_check "rmmod" rmmod batchprobe
ktap_finish
