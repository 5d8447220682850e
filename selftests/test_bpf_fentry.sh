#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: BPF fentry/fexit, one program and link per function (make bench's peer): exact counts on getppid's path, 64 functions attach and detach
# requires: CONFIG_BPF_SYSCALL, CONFIG_BPF_JIT, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF
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

set -- $(bp_peer_calls fentry $F 1000)
ktap_check "fentry_counts_1000" test "$1" -eq 1000
ktap_check "fentry_only_counts_no_exit" test "$2" -eq 0
set -- $(bp_peer_calls fentry-fexit $F 1000)
ktap_check "fentry_fexit_counts_1000_entries" test "$1" -eq 1000
ktap_check "fentry_fexit_counts_1000_exits" test "$2" -eq 1000

base=$(ftrace_attached)
bp_peer_names 64 > /tmp/bp-peer-names
ktap_check "64_candidates" test "$(wc -l < /tmp/bp-peer-names)" -eq 64
during=$(./bpfpeer run fentry-fexit - -- sh -c 'wc -l < /sys/kernel/tracing/enabled_functions' < /tmp/bp-peer-names | head -1)
echo "# enabled_functions: $base before, $during with the links on 64 functions"
ktap_check "ftrace_calls_64_more" test "$during" -ge $((base + 64))
out=$(./bpfpeer bench fentry-fexit < /tmp/bp-peer-names)
echo "# bench: $out"
ktap_check "bench_attached_64" test "$(bp_peer_field "$out" got)" = 64
ktap_check "nothing_left" test "$(ftrace_attached)" -eq "$base"
ktap_finish
