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
# same text. MOD:GLOB takes the module's functions the glob matches (what
# /proc/kallsyms lists), each probed as MOD:SYM (fprobes: ftrace traces
# them; the set holds the module until it is unregistered), max= applies. Then what is
# refused, with the reason: a bad module name, a glob over a module that
# is not loaded (ENOENT), batchprobe itself (on a p: and a d: line); a
# MOD:SYM line on a module that is not loaded waits for it.
. ./bp_lib.sh
T=/sys/kernel/tracing
ktap_plan 31
EINVAL=22 ENOENT=2 EPERM=1
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

# MOD:GLOB: the functions of the module the glob matches, each an int3
# probe on MOD:SYM as an explicit line's (p: and r: lines); the oracle for
# which there are is /proc/kallsyms' text symbols of the module (three at
# least: bp_foreign_count and bp_foreign_extra_a/_b; not bp_foreign_tramp,
# its direct-call trampoline) that kprobe_events takes a probe on.
G="$M:bp_foreign_[ce]*"
kallsyms_glob() { # MOD GLOB: MOD's text symbols GLOB matches, as MOD:SYM, sorted
    awk -v m="[$1]" '$4 == m && ($2 == "t" || $2 == "T") { print $3 }' /proc/kallsyms |
        while read -r _s; do case $_s in $2) echo "$1:$_s" ;; esac; done | sort
}
# kernel_takes MOD:SYM...: those kprobe_events takes a probe on (the
# kernel refuses some: a module's exit function, on some kernels).
kernel_takes() {
    for _s; do
        if echo "p:kpg/x $_s" >> $T/kprobe_events 2>/dev/null; then
            echo "$_s"
            echo '-:kpg/x' >> $T/kprobe_events
        fi
    done
}
listed=$(kallsyms_glob $M 'bp_foreign_[ce]*')
want=$(kernel_takes $listed)
echo "# kallsyms' [$M] functions bp_foreign_[ce]*: $(echo $listed); kprobe_events takes: $(echo $want)"
ktap_check "module_glob_set" bp_ctl "p:bpmg/ $G\nr:bpmg/ $M:bp_foreign_c*\ncreate bpmg\nenable bpmg\n"
set_probes() { # SET KIND: the set's probes of KIND, their symbols, sorted
    awk -v set="$1" -v k="$2" '$1 == "set" { cur = $2; next } cur == set && $1 == k { sub(/\+0$/, "", $3); print $3 }' \
        $BP_DEBUGFS/stats | sort
}
got=$(set_probes bpmg fprobe)
echo "# the set's fprobes: $(echo $got); it holds $(bp_field bpmg holds)"
ktap_check "module_glob_takes_what_kallsyms_lists" test "$(echo "$want" | grep -c .)" -ge 3 -a "$got" = "$want"
ktap_check "module_glob_refusals_counted" test "$(bp_field bpmg skipped)" -eq \
    $(($(echo "$listed" | grep -c .) - $(echo "$want" | grep -c .)))
ktap_check "module_glob_return_probe" test "$(set_probes bpmg fretprobe)" = "$M:$F" -a "$(bp_field bpmg holds)" = $M
for i in 1 2 3; do read -r _v < /proc/version; done
hits() { # SET KIND SYM
    awk -v set="$1" -v k="$2" -v s="$3+0" '$1 == "set" { cur = $2; next }
        cur == set && $1 == k && $3 == s { sub("hits=", "", $4); print $4 }' $BP_DEBUGFS/stats
}
ktap_check "module_glob_counts" test "$(hits bpmg fprobe $M:$F)" -ge 3 -a "$(hits bpmg fretprobe $M:$F)" -ge 3
ktap_check "module_glob_max" bp_ctl "p:bpmx/ $G max=1\ncreate bpmx\n"
ktap_check "module_glob_max_one" test "$(set_probes bpmx fprobe | grep -c .)" = 1
# *:GLOB: every loaded module's functions the glob matches (here only
# bp_foreign has such names), batchprobe's own left out.
ktap_check "every_module_glob" bp_ctl "p:bpma/ *:bp_foreign_[ce]*\np:bpma/ *:bp_module_te*\ncreate bpma\n"
ktap_check "every_module_glob_takes_the_same" test "$(set_probes bpma fprobe)" = "$want"
bp_ctl 'unregister bpmg\nunregister bpmx\nunregister bpma --sync\n'
bp_expect_err "every_module_needs_a_glob" "$EINVAL" "p:bpx/ *:$F\n"
bp_expect_err "module_glob_not_loaded_enoent" "$ENOENT" "p:bpx/ no_such_module:bp_*\ncreate bpx\n"
ktap_check "module_glob_not_loaded_says_why" grep -q 'module no_such_module: not loaded' $BP_DEBUGFS/last_error
bp_expect_err "module_glob_self_eperm" "$EPERM" "p:bpx/ batchprobe:bp_*\ncreate bpx\n"
bp_expect_err "module_glob_direct_self_eperm" "$EPERM" "d:bpx/ batchprobe:bp_*\ncreate bpx\n"
bp_expect_err "bad_module_name_refused" "$EINVAL" "p:bpx/ b/p:$F\n"
ktap_check "no_set_made" sh -c "! grep -q '^bpx ' $BP_DEBUGFS/sets"
# A module that is not loaded: its MOD:SYM probe waits for it, as
# kprobe_events' does (test_module_wait.sh).
ktap_check "module_not_loaded_waits" bp_ctl "p:bpx/ no_such_module:$F\ncreate bpx\n"
ktap_check "module_not_loaded_says_so" test "$(bp_field bpx waiting)" = 1
bp_ctl 'unregister bpx --sync\n'
ktap_check "rmmod" sh -c 'rmmod bp_foreign && rmmod batchprobe'
ktap_finish
