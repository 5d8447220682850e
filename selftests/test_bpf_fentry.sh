#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: BPF fentry/fexit, one program and link per function (make bench's peer): exact counts on getppid's path, 64 functions attach and detach
# requires: CONFIG_BPF_SYSCALL, CONFIG_BPF_JIT, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF
# speed: slow
#
# bpfpeer's fentry and fentry-fexit modes load one program per function per
# side (copies of one template, each tied to its function's BTF id) and
# link each, as retsnoop does. On __task_pid_nr_ns, which getppid() calls
# once: 1000 calls give exactly 1000 entries (and 1000 exits). Then on 64
# functions (each link pays its own trampoline update and grace periods:
# make bench times 256 and 1000): every one attached while the links are
# open, and nothing left once the programs are gone.
. ./bp_lib.sh
bp_need_peer fentry
ktap_plan 8
F=__task_pid_nr_ns

bp_peer_check fentry $F 1000 fentry_counts_1000 fentry_only_counts_no_exit 0
bp_peer_check fentry-fexit $F 1000 fentry_fexit_counts_1000_entries fentry_fexit_counts_1000_exits 1000

base=$(ftrace_attached)
bp_peer_names 64 > /tmp/bp-peer-names
ktap_check "64_candidates" test "$(wc -l < /tmp/bp-peer-names)" -eq 64
bp_peer_on_names fentry-fexit 64 "$base"
ktap_finish
