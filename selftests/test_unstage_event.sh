#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: -:SET/EVENT drops the lines staged for that event, as kprobe_events' -:GROUP/EVENT removes one event; a created set's probes go only with the set
# requires: CONFIG_KPROBES
#
# A line's event is its name, or for an unnamed p:/r: line on one symbol
# the name kprobe_events gives it (p_SYM_OFF, r_SYM_0). -:SET/EVENT (and
# -:SET.EVENT) drops every line staged for SET whose event is EVENT, in
# the registry or earlier in the same write; its name may then be staged
# again. An unnamed glob's line is dropped only whole (-:SET). Refused,
# changing nothing (the whole write): an event with no staged line
# (ENOENT), and a set already created (EBUSY: it retires whole).
. ./bp_lib.sh
ktap_plan 17
ENOENT=2 EEXIST=17 EBUSY=16
P=$BP_GETPPID Q=$BP_GETPID
LE=$BP_DEBUGFS/last_error
# probes SET: the names of SET's probes in stats (an unnamed one is
# named after its symbol), sorted, on one line.
probes() {
    awk -v s="$1" '$1 == "set" { cur = $2; next } cur == s && $4 ~ /^hits=/ { print $2 }' \
        $BP_DEBUGFS/stats | sort | tr '\n' ' '
}
bp_load
ktap_check "named_line_dropped" bp_ctl "p:ue/a $P\np:ue/b $Q\n-:ue/a\ncreate ue\n"
ktap_check "only_the_other_is_created" test "$(probes ue)" = "b "
ktap_check "unnamed_line_by_its_kprobe_events_name" bp_ctl \
    "p:uf/ $P\nr:uf/ $P\np:uf/c $Q\n-:uf/p_${P}_0\n-:uf.r_${P}_0\ncreate uf\n"
ktap_check "dot_form_too" test "$(probes uf)" = "c "
# Staged by one write, dropped by the next; the name staged again after.
bp_ctl "p:ug/a $P\np:ug/b $Q\n"
ktap_check "earlier_write_line_dropped" bp_ctl "-:ug/a\np:ug/a $Q\ncreate ug\n"
ktap_check "its_name_staged_again" test "$(probes ug)" = "a b "
# Taken whole by -:SET, the name is free again too.
ktap_check "dropped_by_set_then_staged" bp_ctl "p:uj/a $P\n-:uj\np:uj/a $Q\n-:uj\n"
# Without the drop, the name is taken.
bp_expect_err "repeat_refused_eexist" $EEXIST "p:uh/a $P\np:uh/a $Q\n"
bp_expect_err "nothing_staged_enoent" $ENOENT "p:uh/a $P\n-:uh/zz\n"
ktap_check "says_which" grep -q "no line staged for uh/zz" $LE
ktap_check "refused_write_stages_nothing" sh -c "! printf 'create uh\n' | bpwrite $BP_CTL"
# A glob's line has many events: only -:SET drops it.
bp_ctl "p:ui/ ${BP_SYS}getpp*\n"
bp_expect_err "glob_member_enoent" $ENOENT "-:ui/p_${P}_0\n"
bp_ctl "-:ui\n"
bp_expect_err "created_set_ebusy" $EBUSY "-:ue/b\n"
ktap_check "says_why" grep -q "set ue is created: its probes go with the set (unregister ue)" $LE
ktap_check "created_set_untouched" test "$(probes ue)" = "b "
bp_ctl "unregister ue --sync\nunregister uf --sync\nunregister ug --sync\n"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
