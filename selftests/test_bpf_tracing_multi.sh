#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: BPF tracing_multi links (fentry.multi, fexit.multi, fsession.multi; Linux 7.2 on), make bench's peer: exact counts on getppid's path, 1000 functions in one link attach and detach
# requires: CONFIG_BPF_SYSCALL, CONFIG_BPF_JIT, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF
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
ktap_plan 10
F=__task_pid_nr_ns

set -- $(bp_peer_calls fentry-multi $F 1000)
ktap_check "fentry_multi_counts_1000" test "$1" -eq 1000
ktap_check "fentry_multi_counts_no_exit" test "$2" -eq 0
set -- $(bp_peer_calls fentry-fexit-multi $F 1000)
ktap_check "fentry_fexit_multi_counts_1000_entries" test "$1" -eq 1000
ktap_check "fentry_fexit_multi_counts_1000_exits" test "$2" -eq 1000
set -- $(bp_peer_calls fsession-multi $F 1000)
ktap_check "fsession_multi_counts_1000_entries" test "$1" -eq 1000
ktap_check "fsession_multi_counts_1000_exits" test "$2" -eq 1000

base=$(ftrace_attached)
bp_peer_names 1100 | ./bpfpeer accept fentry-fexit-multi | head -n 1000 > /tmp/bp-peer-names
ktap_check "1000_accepted" test "$(wc -l < /tmp/bp-peer-names)" -eq 1000
during=$(./bpfpeer run fentry-fexit-multi - -- sh -c 'wc -l < /sys/kernel/tracing/enabled_functions' < /tmp/bp-peer-names | head -1)
echo "# enabled_functions: $base before, $during with the links on 1000 functions"
ktap_check "ftrace_calls_1000_more" test "$during" -ge $((base + 1000))
out=$(./bpfpeer bench fentry-fexit-multi < /tmp/bp-peer-names)
echo "# bench: $out"
ktap_check "bench_attached_1000" test "$(bp_peer_field "$out" got)" = 1000
ktap_check "nothing_left" test "$(ftrace_attached)" -eq "$base"
ktap_finish
