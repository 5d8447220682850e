#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: BPF kprobe_multi links, make bench's peer: exact entry and return counts on getppid's path, one link on 1000 functions attaches and detaches
# requires: CONFIG_BPF_SYSCALL, CONFIG_BPF_EVENTS, CONFIG_FPROBE, CONFIG_DEBUG_INFO_BTF
# speed: slow on stock-7.3
#
# bpfpeer's kprobe-multi (one kprobe.multi link) and kprobe-multi-ret (plus
# a kretprobe.multi link) on __task_pid_nr_ns, which getppid() calls once:
# 1000 calls give exactly 1000 entries (and 1000 returns). Then both on
# 1000 functions: ftrace calls into every one while attached, and nothing
# is left when the programs are gone. The bench never times a program
# that does not run.
. ./bp_lib.sh
bp_need_peer kprobe-multi
ktap_plan 8
F=__task_pid_nr_ns

bp_peer_check kprobe-multi $F 1000 entry_counts_1000 entry_only_counts_no_exit 0
bp_peer_check kprobe-multi-ret $F 1000 ret_counts_1000_entries ret_counts_1000_exits 1000

base=$(ftrace_attached)
bp_peer_names 1000 > /tmp/bp-peer-names
ktap_check "1000_candidates" test "$(wc -l < /tmp/bp-peer-names)" -eq 1000
bp_peer_on_names kprobe-multi-ret 1000 "$base"
ktap_finish
