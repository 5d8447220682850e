#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: an eprobe on a batchprobe event (it takes the event's call->refcnt and no module reference): a retired set's event held so is removed within seconds of the eprobe's deletion, with no other set's sync, and rmmod then succeeds; rmmod while an eprobe holds a live set's event waits (the module, its event and a log line naming them stay) until the eprobe is deleted, then completes, leaving no event behind
# requires: CONFIG_KPROBES, CONFIG_KPROBE_EVENTS, dynamic_events
#
# The review of 2026-12-05 (finding 1): rmmod was allowed, module exit
# adopted the busy event with __module_get() (too late), and the module
# was freed with its event still in tracefs: enabling the eprobe then ran
# freed module text. Finding 9: an orphan an eprobe held was retried only
# when another set's events were added or removed.
. ./bp_lib.sh
T=/sys/kernel/tracing
grep -qF 'e[:[' $T/README || bp_skip_all "no eprobes here (CONFIG_EPROBE_EVENTS: no e[:[ in $T/README)"
ktap_plan 16
S=$BP_GETPPID

# gone DIR SECS: DIR is gone within SECS seconds (checked every 0.2 s).
gone() {
    _i=0
    while [ -e "$1" ] && [ "$_i" -lt $(($2 * 5)) ]; do sleep 0.2; _i=$((_i + 1)); done
    [ ! -e "$1" ]
}

bp_load
# However the program ends, its eprobes go first: with one left, the
# cleanup's rmmod would wait for it.
trap 'rc=$?; for e in held live; do echo "-:epg/$e" >> $T/dynamic_events 2>/dev/null; done; (exit $rc); bp_cleanup' EXIT
ktap_check "set_with_event" bp_ctl "p:eps/ev $S\ncreate eps\nenable eps\n"
ktap_check "eprobe_on_it" sh -c "echo 'e:epg/held eps.ev' >> $T/dynamic_events"
# Retired: the event stays (held), without records, holding the module.
ktap_check "retired" bp_ctl "unregister eps --sync\n"
ktap_check "held_event_stays" test -d $T/events/eps/ev
ktap_check "rmmod_refused_while_orphan_held" sh -c "! rmmod batchprobe 2>/dev/null"
echo '-:epg/held' >> $T/dynamic_events
# No set is created or retired now: the retry alone must remove it.
ktap_check "orphan_removed_after_release" gone $T/events/eps/ev 5
ktap_check "rmmod_after_release" rmmod batchprobe

# Unload while an eprobe holds a live set's event.
ktap_check "insmod_again" insmod "$BP_KO"
ktap_check "live_set_with_event" bp_ctl "p:epl/ev $S\ncreate epl\nenable epl\n"
ktap_check "eprobe_on_live_event" sh -c "echo 'e:epg/live epl.ev' >> $T/dynamic_events"
mark="bp-test-unload-eprobe-$$"
echo "$mark" > /dev/kmsg
rmmod batchprobe > /tmp/ep-rmmod.out 2>&1 &
rm_pid=$!
# Module exit retires the set, cannot remove the held event, and waits,
# saying so at once (then every 10 s).
i=0
while ! dmesg | sed -n "/$mark/,\$p" | grep -q 'unload waits for event epl/ev' && [ $i -lt 100 ]; do
    sleep 0.2; i=$((i + 1))
done
ktap_check "exit_waits_saying_which_event" sh -c "dmesg | sed -n '/$mark/,\$p' | grep -q 'unload waits for event epl/ev.*dynamic_events'"
ktap_check "module_still_there" test -d /sys/module/batchprobe
ktap_check "event_still_there" test -d $T/events/epl/ev
echo '-:epg/live' >> $T/dynamic_events
wait $rm_pid
rc=$?
ktap_check "rmmod_completes_after_release" test "$rc" -eq 0
if [ "$rc" -ne 0 ]; then sed 's/^/# rmmod: /' /tmp/ep-rmmod.out; fi
ktap_check "nothing_left" sh -c "test ! -d /sys/module/batchprobe && test ! -d $T/events/epl"
ktap_finish
