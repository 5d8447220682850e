#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: SYM+OFF on a module's function registers where tracefs
#   kprobe_events would, and counts; past the end of that function it is
#   still refused with EINVAL
# requires: bp_foreign.ko (selftests/modules), CONFIG_KPROBES, CONFIG_KPROBE_EVENTS
#
# After registering SYM+OFF, batchprobe checks that the kernel put the probe
# OFF bytes into SYM (past SYM's end it would be in the next function). That
# check must read a module's symbols as well as the core kernel's: the
# kernel resolves a module's function by name like any other. The offset is
# the first one past +0 that tracefs accepts (4, after endbr64, on IBT
# kernels; the end of the fentry call otherwise): an instruction boundary.
# bp_foreign.ko's direct call on vfs_read calls bp_foreign_count.
. ./bp_lib.sh
T=/sys/kernel/tracing
ktap_plan 12
EINVAL=22
F=bp_foreign_count

bp_load insmod_batchprobe
ktap_check "insmod_foreign" insmod "$BP_FOREIGN" direct=vfs_read
# The reference: the first offset tracefs takes for a kprobe on $F.
off=
for n in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
    if echo "p:bpmodoff/x $F+$n" >> $T/kprobe_events 2> /dev/null; then
        off=$n
        echo "-:bpmodoff/x" >> $T/kprobe_events
        break
    fi
done
echo "# tracefs takes $F+${off:-nothing in 1..16}"
ktap_check "tracefs_accepts_an_offset" test -n "$off"
off=${off:-4}
kp0=$(kprobes_registered)
ktap_check "int3_line_accepted" bp_ctl "p!:mo/x $F+$off\ncreate mo\nenable mo\n"
echo "# $(cat $BP_DEBUGFS/last_error)"
ktap_check "kernel_lists_it_at_the_offset" grep -Eq " k +$F\+0x$(printf %x "$off") +bp_foreign " /sys/kernel/debug/kprobes/list
cat /proc/version > /dev/null
ktap_check "it_counts" test "$(bp_probe_hits mo x)" -gt 0
ktap_check "plain_p_line_accepted" bp_ctl "p:mp/y $F+$off\ncreate mp\n"
ktap_check "served_by_a_kprobe" test "$(bp_probe_kind mp y)" = kprobe
ktap_check "unregister" bp_ctl 'unregister mo\nunregister mp --sync\n'
ktap_check "nothing_left_registered" test "$(kprobes_registered)" -eq "$kp0"
# Past the end: $F's size is the distance to the module's next text symbol
# (sprint_symbol's size). The kernel would probe that symbol.
size=$(awk -v f=$F '$4 == "[bp_foreign]" && $2 ~ /^[tT]$/ { print $1, $3 }' /proc/kallsyms | sort |
    awk -v f=$F '$2 == f { a = $1; next } a && $1 != a { print $1, a; exit }' |
    { read -r b a && echo $((0x$b - 0x$a)); })
echo "# $F is ${size:-?} bytes"
if [ -n "$size" ]; then
    bp_expect_err "past_end_refused_einval" "$EINVAL" "p!:mx/x $F+$size\ncreate mx\n"
    echo "# $(cat $BP_DEBUGFS/last_error)"
else
    ktap_skip "past_end_refused_einval" "no text symbol after $F in bp_foreign"
fi
ktap_check "rmmod" sh -c 'rmmod bp_foreign && rmmod batchprobe'
ktap_finish
