#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: MOD:SYM targets a module's function as kprobe_events' MOD:SYM does: the same event name, the same records, a kprobe and a kretprobe that count
# requires: bp_foreign.ko (selftests/modules), CONFIG_KPROBES, CONFIG_KPROBE_EVENTS
#
# kprobe_events takes [MOD:]SYM: the kernel resolves "MOD:SYM" in that
# module (kallsyms_lookup_name() reads the MOD: part), and an unnamed probe
# is named after both (p_MOD_SYM_0). The same lines, entry and return, are
# defined in kprobe_events (group kpmod) and in a set created with --events
# (group bpmod), on bp_foreign_count (bp_foreign.ko's direct call on
# vfs_read calls it): the event names must be the kernel's, the probes a
# kprobe and a kretprobe that count, and the records of the same reads the
# same text. Then what is refused, with the reason: MOD:GLOB (a glob takes
# the core kernel's functions), a bad module name, and a module that is
# not loaded (ENOENT at create, where kprobe_events would wait for it).
. ./bp_lib.sh
T=/sys/kernel/tracing
ktap_plan 17
EINVAL=22 ENOENT=2 EOPNOTSUPP=95
M=bp_foreign F=bp_foreign_count
P=p_${M}_${F}_0 R=r_${M}_${F}_0

bp_load insmod_batchprobe
ktap_check "insmod_foreign" insmod "$BP_FOREIGN" direct=vfs_read
echo 0 > $T/tracing_on
echo > $T/trace
ktap_check "kprobe_events_takes_them" sh -c "printf '%s\n' 'p:kpmod/ $M:$F' 'r:kpmod/ $M:$F' >> $T/kprobe_events"
ktap_check "batchprobe_takes_them" bp_ctl "p:bpmod/ $M:$F\nr:bpmod/ $M:$F\ncreate bpmod --events\nenable bpmod\n"
echo "# $(head -1 $BP_DEBUGFS/last_error)"
ktap_check "entry_event_named_as_the_kernel" test -d $T/events/kpmod/$P -a -d $T/events/bpmod/$P
ktap_check "return_event_named_as_the_kernel" test -d $T/events/kpmod/$R -a -d $T/events/bpmod/$R
# The set's probes in stats: "KIND NAME SYMBOL+OFF hits=N ...".
probes() { awk '$1 == "set" { cur = $2; next } cur == "bpmod"' $BP_DEBUGFS/stats; }
probes | sed 's/^/# /'
served() { probes | grep -q "^ *$1 .* $M:$F+0 "; }
ktap_check "served_by_a_kprobe" served kprobe
ktap_check "served_by_a_kretprobe" served kretprobe

# The same reads with each group's events on in turn (the events share
# their names): every record of the entry reads "(bp_foreign_count+OFF/SIZE
# [bp_foreign])", of the return "(CALLER <- bp_foreign_count)", whichever
# task read (the shell's read builtin: read(2), as busybox' cat may copy
# with sendfile, which vfs_read never sees).
records() { # EVENT: the records' distinct texts past the event's name, and how many
    grep -v '^#' $T/trace | sed -n "s/.* $1: //p" > /tmp/bpmod.all
    echo "$(grep -c . /tmp/bpmod.all) $(sort -u /tmp/bpmod.all | tr '\n' '|')"
}
# Only that group's probes armed: two kretprobes on one function see each
# other's return trampoline as the caller ("[unknown/kretprobe'd]").
for g in kpmod bpmod; do
    if [ $g = kpmod ]; then bp_ctl 'disable bpmod\nflush\n'; else bp_ctl 'enable bpmod\n'; fi
    echo > $T/trace
    echo 1 > $T/events/$g/enable
    echo 1 > $T/tracing_on
    for i in 1 2 3; do read -r _v < /proc/version; done
    echo 0 > $T/tracing_on
    echo 0 > $T/events/$g/enable
    records $P > /tmp/bpmod.$g.p
    records $R > /tmp/bpmod.$g.r
done
for e in p r; do
    read -r kn kt < /tmp/bpmod.kpmod.$e
    read -r bn bt < /tmp/bpmod.bpmod.$e
    echo "# $e: kprobe_events $kn records: $kt"
    echo "# $e: batchprobe $bn records: $bt"
    ktap_check "records_$e" test "$kn" -ge 3 -a "$bn" -eq "$kn" -a "$kt" = "$bt"
done
ktap_check "it_counts" test "$(probes | awk '$1 == "kprobe" { sub("hits=", "", $4); print $4 }')" -ge 3
ktap_check "unregister" bp_ctl 'unregister bpmod --sync\n'
echo > $T/kprobe_events

bp_expect_err "module_glob_refused" "$EOPNOTSUPP" "p:bpx/ $M:bp_*\n"
bp_expect_err "bad_module_name_refused" "$EINVAL" "p:bpx/ b/p:$F\n"
bp_expect_err "module_not_loaded_enoent" "$ENOENT" "p:bpx/ no_such_module:$F\ncreate bpx\n"
ktap_check "no_set_made" sh -c "! grep -q '^bpx ' $BP_DEBUGFS/sets"
ktap_check "rmmod" sh -c 'rmmod bp_foreign && rmmod batchprobe'
ktap_finish
