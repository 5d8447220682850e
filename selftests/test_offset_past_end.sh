#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: SYM+OFF past the end of SYM is refused, not moved to the next function
# requires: CONFIG_KPROBES
#
# The kernel resolves SYM+OFF to an address and probes whatever lies there:
# past SYM's end that is the next function, and stats would still say
# SYM+OFF. An explicit probe fails with EINVAL naming the symbol; a glob
# skips (and counts) such members.
. ./bp_lib.sh
ktap_plan 9
EINVAL=22 ENOENT=2

bp_load
kp0=$(kprobes_registered)
# __x64_sys_getppid+SIZE is the first byte of the next function: an
# instruction boundary the kernel would accept (most offsets past the end
# land mid-instruction, which it refuses itself with EILSEQ).
size=$(awk '$3 == "'"${BP_GETPPID}"'" { a = $1; next } a && $1 != a { print $1, a; exit }' /proc/kallsyms |
    { read -r b a; echo $((0x$b - 0x$a)); })
echo "# ${BP_GETPPID} is $size bytes"
bp_expect_err "explicit_past_end_einval" "$EINVAL" "p:pe/x ${BP_GETPPID}+$size\ncreate pe\n"
# Refused by batchprobe's own check where the kernel would take it; some
# kernels (IBT: the next function starts with endbr64) refuse it first, and
# where the next function is notrace (Debian's image), that is what both
# kprobe_events and batchprobe say first.
echo "# $(cat $BP_DEBUGFS/last_error)"
ktap_check "error_names_symbol" grep -Eq "^line 1: p:pe/x ${BP_GETPPID}\+$size: (offset past the end of the symbol|probing refused: .*|Could not probe notrace function .*) \(EINVAL\), at create on line 2$" $BP_DEBUGFS/last_error
ktap_check "nothing_left_registered" test "$(kprobes_registered)" -eq "$kp0"
bp_expect_err "glob_all_past_end_enoent" "$ENOENT" 'p:pg/ '"${BP_SYS}getpp*"'+4096\ncreate pg\n'
# A glob keeps the members the offset fits in and skips the others.
ktap_check "glob_mixed_sizes" bp_ctl 'p:pm/ vfs_*+64\ncreate pm\n'
n=$(bp_field pm kprobes) sk=$(bp_field pm skipped)
echo "# vfs_*+64: $n probes, $sk skipped"
ktap_check "glob_skipped_short_members" test "$sk" -gt 0
# kprobes/list names each probe by where it really is: every one of ours
# must be some vfs_*+0x40, none a +0x.. into a following function.
outside() { awk '$2 == "k" && $3 ~ /^vfs_/ && $3 !~ /\+0x40$/' /sys/kernel/debug/kprobes/list; }
ktap_check "every_kept_probe_inside_its_symbol" test -z "$(outside)"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
