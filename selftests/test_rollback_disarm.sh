#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a write that disables a set it created, then fails, rolls back safely
# requires: CONFIG_KPROBES, CONFIG_FPROBE
#
# `disable` queues the physical disarm on the module workqueue. When a later
# line of the same write fails, the rollback unregisters and frees that set:
# it must first wait for the queued disarm, which would otherwise call
# disable_kprobe() on freed probes (a use-after-free that KASAN, on the
# debug kernel, reports), or unregister an fprobe being freed. Repeated so
# that the disarm is still running when the rollback starts: for a set of
# kprobes (p!:), then for one of fprobes (p: at +0).
. ./bp_lib.sh
ktap_plan 7
ENOENT=2
# refused BANG: 8 such writes, the set's lines p$BANG:; prints how many were
# not refused with ENOENT.
refused() {
    fails=0
    for i in 1 2 3 4 5 6 7 8; do
        out=$(bp_ctl "p$1:rb/ vfs_* max=64\ncreate rb\nenable rb\ndisable rb\np:rb2/ no_such_function_xyz\ncreate rb2\n" 2>&1)
        echo "$out" | grep -qF "(errno $ENOENT)" || fails=$((fails + 1))
    done
    echo "$fails"
}

bp_load
kp0=$(kprobes_registered) ef0=$(ftrace_enabled)
ktap_check "every_write_refused_enoent" test "$(refused '!')" -eq 0
ktap_check "nothing_left_registered" test "$(kprobes_registered)" -eq "$kp0"
ktap_check "fprobe_every_write_refused_enoent" test "$(refused '')" -eq 0
ktap_check "fprobe_nothing_left_in_ftrace" test "$(kprobes_registered) $(ftrace_enabled)" = "$kp0 $ef0"
ktap_check "no_set_left" test -z "$(grep -v '^#' $BP_DEBUGFS/sets)"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
