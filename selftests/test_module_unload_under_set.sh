#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a module unloads under a live set of its functions on int3 probes (p!: MOD:GLOB, r: MOD:SYM): the set holds no pin on it, its probes go as the kernel's kprobe_events probes on the same functions go, the set stays consistent and goes away cleanly, and the module loaded again is probed again; a p: MOD:GLOB set's fprobes hold the module loaded instead, and say so
# requires: bp_foreign.ko (selftests/modules), CONFIG_KPROBES, CONFIG_KPROBE_EVENTS
#
# The kernel is the oracle: a kprobe_events probe on the same function
# (group kpmu) is beside the set throughout. With bp_foreign.ko loaded (its
# direct call on vfs_read calls bp_foreign_count), a set of its functions
# (p!: MOD:GLOB entry probes, a MOD:SYM return probe, their events) counts
# reads; rmmod bp_foreign succeeds at once (nothing of batchprobe's pins
# it, as nothing of kprobe_events' does); the kernel lists both its own
# probe and the set's as gone; the set is still listed, enabled; reads
# count nothing more; the set can be disabled and unregistered (freed), and
# the module loaded again is probed again by a new set of the same name. A
# p: line's MOD:GLOB members are fprobes (ftrace traces them): that set
# holds the module loaded until it is unregistered, as a kprobe_multi link
# holds the modules of its addresses (holds=bp_foreign; rmmod: in use),
# and lets it go when it is unregistered. No kernel warning.
. ./bp_lib.sh
T=/sys/kernel/tracing
ktap_plan 24
M=bp_foreign F=bp_foreign_count
G="$M:bp_foreign_[ce]*"

bp_load insmod_batchprobe
ktap_check "insmod_foreign" insmod "$BP_FOREIGN" direct=vfs_read
ktap_check "kprobe_events_probe" sh -c "echo 'p:kpmu/k $M:$F' >> $T/kprobe_events"
ktap_check "set_made" bp_ctl "p!:bpmu/ $G\nr:bpmu/ $M:$F\ncreate bpmu --events\nenable bpmu\n"
reads() { for _i in 1 2 3; do read -r _v < /proc/version; done; }
hits() { # KIND [SET]: the set's (bpmu's) probe of KIND on bp_foreign_count: its hits
    awk -v k="$1" -v set="${2:-bpmu}" -v s="$M:$F+0" '$1 == "set" { cur = $2; next }
        cur == set && $1 == k && $3 == s { sub("hits=", "", $4); print $4 }' $BP_DEBUGFS/stats
}
reads
ktap_check "counts_while_loaded" test "$(hits kprobe)" -ge 3 -a "$(hits kretprobe)" -ge 3
# No pin: the module unloads under the enabled set.
ktap_check "rmmod_module_under_the_set" rmmod bp_foreign
# (A gone probe's line has its address only: its module's symbols went.)
gone() { grep -c '\[GONE\]' /sys/kernel/debug/kprobes/list; }
grep 'GONE' /sys/kernel/debug/kprobes/list | sed 's/^/# /'
probes=$(bp_set_probes bpmu)
# Every probe of the set, and the kernel's own, listed as gone.
ktap_check "kernel_lists_them_gone" test "$(gone)" -eq $((probes + 1))
ktap_check "set_still_enabled" test "$(bp_state bpmu)" = enabled
before=$(hits kprobe)
reads
ktap_check "counts_nothing_after" test "$(hits kprobe)" = "$before"
ktap_check "disable_after" bp_ctl 'disable bpmu\nflush\n'
# Enabled again, as the kernel enables an event whose probe is gone: its
# gone probes are left as they are (__enable_trace_kprobe() skips them).
ktap_check "kernel_enables_its_gone_probe" sh -c "echo 1 > $T/events/kpmu/k/enable && echo 0 > $T/events/kpmu/k/enable"
ktap_check "enable_after" bp_ctl 'enable bpmu\n'
ktap_check "disable_again" bp_ctl 'disable bpmu\nflush\n'
ktap_check "unregister_after" bp_ctl 'unregister bpmu --sync\n'
ktap_check "set_freed" test "$(bp_state bpmu)" = freed
echo > $T/kprobe_events
# Loaded again: probed again.
ktap_check "insmod_again" insmod "$BP_FOREIGN" direct=vfs_read
ktap_check "probed_again" bp_ctl "p!:bpmu/ $G\nr:bpmu/ $M:$F\ncreate bpmu\nenable bpmu\n"
reads
ktap_check "counts_again" test "$(hits kprobe)" -ge 3 -a "$(hits kretprobe)" -ge 3
bp_ctl 'unregister bpmu --sync\n'
# p: (not p!:): the glob's members are fprobes, which hold the module.
ktap_check "fprobe_glob_set" bp_ctl "p:bpmf/ $G\ncreate bpmf\nenable bpmf\n"
grep "^bpmf " $BP_DEBUGFS/sets | sed 's/^/# /'
ktap_check "fprobe_glob_holds_the_module" test "$(bp_field bpmf fprobes)" -ge 3 -a "$(bp_field bpmf kprobes)" = 0 -a "$(bp_field bpmf holds)" = $M
ktap_check "rmmod_refused_while_held" sh -c '! rmmod bp_foreign 2> /dev/null && test -d /sys/module/bp_foreign'
reads
ktap_check "fprobe_glob_counts" test "$(hits fprobe bpmf)" -ge 3
ktap_check "unregister_fprobe_glob_set" bp_ctl 'unregister bpmf --sync\n'
ktap_check "rmmod" sh -c 'rmmod bp_foreign && rmmod batchprobe'
ktap_finish
