#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: an event name tracefs has already is refused wherever it falls among a set's events (in the first chunk of adds or a later one, against kprobe_events, a static event, or a set's event), with EEXIST naming it, and nothing is left of the set: no event, no set; without the taken name the same set is made; a kprobe event written while a set's chunks are added takes the name or is refused, never both
# requires: CONFIG_KPROBE_EVENTS, CONFIG_FPROBE
#
# A set's events are added in chunks of 256, each under event_mutex, and
# the check for a name tracefs has is made in each chunk, under that lock
# (rust/events.c, bp_sync_taken): the first chunk's against every event
# tracefs has, a later one's against those added since the chunk before,
# while event_mutex was free. The names sort as bytes: "aaa_*" comes
# first, "zzz_*" after any p_SYM_0.
. ./bp_lib.sh
ktap_plan 19
T=/sys/kernel/tracing
EEXIST=17
S=$BP_GETPPID

bp_load
# 4,000 functions ftrace can trace that one text symbol has and kprobes
# do not blacklist, with names short enough for p_SYM_0; the first 600
# (three chunks) for the cases before the last.
awk '($2 == "t" || $2 == "T") && NF == 3 { n[$3]++ } END { for (s in n) if (n[s] > 1) print s }' \
    /proc/kallsyms > /tmp/tkn.twice
echo "#" >> /tmp/tkn.twice
grep -v -e '\.' -e ' ' $T/available_filter_functions | sort -u | bp_unblacklisted |
    awk 'NR == FNR { twice[$1] = 1; next } length($0) <= 48 && !($1 in twice)' /tmp/tkn.twice - |
    grep -vx "$S" | head -4000 | sed 's|^|p:tkn/ |' > /tmp/tkn.many
head -600 /tmp/tkn.many > /tmp/tkn.lines
ktap_check "600_functions" test "$(wc -l < /tmp/tkn.lines)" -eq 600
nev() { ls $T/events/tkn 2>/dev/null | grep -cv -e '^enable$' -e '^filter$'; }

# taken NAME CASE: the 600 lines and "p:tkn/NAME getppid" refused with
# EEXIST naming tkn/NAME, and the group left with only the kernel's event.
taken() {
    { cat /tmp/tkn.lines; echo "p:tkn/$1 $S"; echo "create tkn --events"; } > /tmp/tkn.write
    if out=$(bpwrite $BP_CTL < /tmp/tkn.write 2>&1); then
        ktap_fail "$2" "the create was taken"
        bp_ctl 'unregister tkn --sync\n'
    elif echo "$out" | grep -qF "(errno $EEXIST)" &&
        grep -q "event tkn/$1 exists in tracefs" $BP_DEBUGFS/last_error; then
        ktap_pass "$2"
    else
        ktap_fail "$2" "got '$out', $(head -1 $BP_DEBUGFS/last_error)"
    fi
    # (A freed set of the name stays listed, "tkn freed".)
    ktap_check "$2_nothing_left" sh -c "test $(nev) -eq 1 && ! grep -qE '^tkn (registered|enabled|disabled|retiring)' $BP_DEBUGFS/sets"
}

# A kprobe_events event named to sort first, then last.
echo "p:tkn/aaa_taken $S" >> $T/kprobe_events
taken aaa_taken "first_chunk_kprobe_event"
echo "-:tkn/aaa_taken" >> $T/kprobe_events
echo "p:tkn/zzz_taken $S" >> $T/kprobe_events
taken zzz_taken "last_chunk_kprobe_event"
echo "-:tkn/zzz_taken" >> $T/kprobe_events

# Another set's event (the group is the set's name: a second set named
# tkn cannot be made while the first lives, so its event is kept by a
# user who enabled it when the set went: an event in use stays).
ktap_check "set_with_zzz" bp_ctl "p:tkn/zzz_kept $S\ncreate tkn --events\n"
echo 1 > $T/events/tkn/zzz_kept/enable
ktap_check "set_gone_event_kept" sh -c ". ./bp_lib.sh; bp_ctl 'unregister tkn --sync\n' && test -d $T/events/tkn/zzz_kept"
taken zzz_kept "last_chunk_kept_event"
echo 0 > $T/events/tkn/zzz_kept/enable
bp_ctl 'flush\n'

# batchprobe's own static event, in a set named batchprobe.
sed 's|^p:tkn/|p:batchprobe/|' /tmp/tkn.lines > /tmp/tkn.bp
{ cat /tmp/tkn.bp; echo "p:batchprobe/sync $S"; echo "create batchprobe --events"; } > /tmp/tkn.write
if out=$(bpwrite $BP_CTL < /tmp/tkn.write 2>&1); then
    ktap_fail "static_event_refused" "the create was taken"
    bp_ctl 'unregister batchprobe --sync\n'
else
    ktap_check "static_event_refused" grep -q "event batchprobe/sync exists in tracefs" $BP_DEBUGFS/last_error
fi
ktap_check "static_event_nothing_left" test "$(ls $T/events/batchprobe | grep -c '^p_')" -eq 0

# Without a taken name, the same 600 lines make their events.
ktap_check "made_without" sh -c ". ./bp_lib.sh; { cat /tmp/tkn.lines; echo 'create tkn --events'; } | bpwrite $BP_CTL"
ktap_check "an_event_each" test "$(nev)" -eq 600
ktap_check "unregister" bp_ctl 'unregister tkn --sync\n'
ktap_check "all_gone" test ! -d $T/events/tkn

# A kprobe event named as the last of 4,000 events, written by another
# task as soon as batchprobe/hold says the set's sync began (16 chunks):
# written between two chunks, a later chunk finds it and the create fails
# with EEXIST naming it, nothing of the set left; written after the last
# chunk, kprobe_events refuses it. Never both.
ktap_check "4000_functions" test "$(wc -l < /tmp/tkn.many)" -eq 4000
L=$(sed 's|^p:tkn/ \(.*\)$|p_\1_0|' /tmp/tkn.many | LC_ALL=C sort | tail -1)
H=$T/events/batchprobe/hold/enable
{ cat /tmp/tkn.many; echo "create tkn --events"; } > /tmp/tkn.write
bpwrite $BP_CTL < /tmp/tkn.write > /tmp/tkn.race.out 2>&1 &
wpid=$!
h=0
while [ "$h" != 1 ] && kill -0 $wpid 2>/dev/null; do read -r h < $H; done
echo "p:tkn/$L $S" 2>/dev/null >> $T/kprobe_events
kp=$?
wait $wpid
rc=$?
if [ $kp -eq 0 ] && [ $rc -ne 0 ]; then
    echo "# the kprobe event came between two chunks (hold seen: $h): the create was refused"
    ktap_check "race_one_owner" sh -c "grep -qF '(errno $EEXIST)' /tmp/tkn.race.out &&
        grep -q 'event tkn/$L exists in tracefs' $BP_DEBUGFS/last_error && test $(nev) -eq 1"
    echo "-:tkn/$L" >> $T/kprobe_events
elif [ $kp -ne 0 ] && [ $rc -eq 0 ]; then
    echo "# the kprobe event came after the sync (hold seen: $h): kprobe_events refused it"
    ktap_check "race_one_owner" test "$(nev)" -eq 4000
    bp_ctl 'unregister tkn --sync\n'
else
    ktap_fail "race_one_owner" "kprobe_events write rc=$kp, create rc=$rc: $(head -1 /tmp/tkn.race.out)"
    echo "-:tkn/$L" >> $T/kprobe_events 2>/dev/null
    bp_ctl 'unregister tkn --sync\n' 2>/dev/null
fi
ktap_check "race_all_gone" test ! -d $T/events/tkn
ktap_finish
