#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: writes of tens of thousands of lines: no page-allocator warning, documented caps
# requires: CONFIG_KPROBES
#
# Sizes that follow the input live in vmalloc-backed vectors: 40,000
# commands in one write (240 KB of "flush") once asked kmalloc for an
# order > 10 allocation, a WARNING and ENOMEM. Validation sorts instead of
# comparing every line with every other, so 40,000 named probe lines are
# checked in one pass; a repeated name is still found, at its line. At most
# 65,536 probe lines are staged at once (ENOSPC beyond), and a refused
# write changes nothing.
. ./bp_lib.sh
ktap_plan 9
EEXIST=17 ENOSPC=28

w0=$(bp_kernel_warnings)
bp_load
flushes() { awk 'BEGIN { for (i = 0; i < 40000; i++) print "flush" }' | bpwrite $BP_CTL; }
ktap_check "forty_thousand_commands_in_one_write" flushes
named() { # SET N [DUP]: N named probe lines, then a repeat of the first name
    awk -v s="$1" -v n="$2" -v d="${3:-}" \
        'BEGIN { for (i = 0; i < n; i++) printf "p:%s/n%d vfs_read\n", s, i; if (d) printf "p:%s/n0 vfs_write\n", s }' \
        | bpwrite $BP_CTL
}
ktap_check "forty_thousand_named_probe_lines" named big 40000
staged() { sed -n 's/^# \([0-9]*\) probe(s) staged.*/\1/p' $BP_DEBUGFS/sets; }
ktap_check "all_staged" test "$(staged)" = 40000
out=$(named dup 20000 1 2>&1)
ktap_check "repeat_found_at_its_line" sh -c "echo '$out' | grep -qF '(errno $EEXIST)' && grep -qx 'line 20001: p:dup/n0 vfs_write: probe dup/n0 is already staged (EEXIST)' $BP_DEBUGFS/last_error"
out=$(named more 30000 2>&1)
ktap_check "staging_cap_enospc" sh -c "echo '$out' | grep -qF '(errno $ENOSPC)'"
ktap_check "refused_writes_staged_nothing" test "$(staged)" = 40000
ktap_check "rmmod_with_staging" rmmod batchprobe
ktap_check "no_warning_in_kernel_log" bp_no_new_warnings "$w0"
ktap_finish
