#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: BPF tracing_multi links (fentry.multi, fexit.multi, fsession.multi; Linux 7.2 on), make bench's peer: exact counts on getppid's path, 1000 functions in one link attach and detach
# requires: CONFIG_BPF_SYSCALL, CONFIG_BPF_JIT, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF
# speed: slow on stock-7.3
#
# bpfpeer's fentry-multi (one link on N BTF ids), fentry-fexit-multi (one
# link per side) and fsession-multi (one program, entry and exit) on
# __task_pid_nr_ns, which getppid() calls once: 1000 calls give exactly
# 1000 entries, and 1000 exits where the mode has them. One id the kernel
# refuses fails the whole link, so the 1000 functions are those bpfpeer's
# accept keeps (bisecting what is refused); then one link per side on all
# of them, and nothing left once the programs are gone.
. ./bp_lib.sh
bp_need_peer fentry-multi
# Only BPF's own links run here, no batchprobe code: under the address
# sanitizer and TCG (debug-7.3) the links on 1000 core functions took 510
# to 590 s of the guest's time in two full checks (2026-12-03), and once the
# hung-task detector's 120 s in the kernel's own multi-link detach. The
# non-sanitized 7.3 flavors (distro-7.3, Debian's image) run it.
grep -q ' kasan_report$' /proc/kallsyms &&
    bp_skip_all "address sanitizer (kasan_report) under TCG: BPF's links on 1000 core functions take most of the runner's budget; the other 7.3 flavors run this"
ktap_plan 10
F=__task_pid_nr_ns

bp_peer_check fentry-multi $F 1000 fentry_multi_counts_1000 fentry_multi_counts_no_exit 0
bp_peer_check fentry-fexit-multi $F 1000 fentry_fexit_multi_counts_1000_entries fentry_fexit_multi_counts_1000_exits 1000
bp_peer_check fsession-multi $F 1000 fsession_multi_counts_1000_entries fsession_multi_counts_1000_exits 1000

base=$(ftrace_attached)
bp_peer_names 1100 | ./bpfpeer accept fentry-fexit-multi | head -n 1000 > /tmp/bp-peer-names
ktap_check "1000_accepted" test "$(wc -l < /tmp/bp-peer-names)" -eq 1000
bp_peer_on_names fentry-fexit-multi 1000 "$base"
ktap_finish
