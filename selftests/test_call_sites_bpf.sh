#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a function whose call site BPF's trampoline holds is still one ftrace can call, when batchprobe learns the kernel's call sites
# requires: CONFIG_BPF_SYSCALL, CONFIG_BPF_JIT, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF
#
# batchprobe finds which functions ftrace can call once after load, for
# every text symbol, from each one's first instruction (src/ftrace/sites.rs),
# when a create first asks about more than 1,024 functions: ftrace's NOP,
# or what ftrace wrote there. With a BPF fentry + fexit pair as the
# function's only tracer, that is a direct call of BPF's trampoline, and on
# 7.x (CONFIG_DYNAMIC_FTRACE_WITH_JMP) a jmp, since the trampoline calls
# the function itself. A create of 1,100 functions makes the table while
# the programs are attached; then a `p:` line on the function, answered
# from that table, must still get an fprobe (beside BPF's trampoline, as
# ftrace lets it), not a kprobe, and count the calls; and once BPF has let
# go, a direct set takes it too.
. ./bp_lib.sh
bp_need_peer fentry-fexit
ktap_plan 6
F=__task_pid_nr_ns

bp_load
# bpfpeer runs the shell with the programs attached, then detaches them.
out=$(./bpfpeer run fentry-fexit $F -- sh -c ". ./bp_lib.sh
    bp_ctl 'p:big/ * max=1100\ncreate big --no-events\n' || exit 1
    bp_ctl 'p:beside/ $F\ncreate beside --no-events\nenable beside\n' || exit 1
    bphit 100 > /dev/null
    echo \$(bp_field beside fprobes) \$(bp_field beside kprobes) \$(bp_field beside hits)" 2>&1 | head -1)
echo "# with BPF's fentry + fexit on $F: fprobes kprobes hits = $out"
set -- $out
ktap_check "fprobe_beside_bpf_trampoline" test "${1:-0}" -eq 1 -a "${2:-1}" -eq 0
ktap_check "counts_beside_bpf_trampoline" test "${3:-0}" -ge 100
ktap_check "unregister" bp_ctl 'unregister beside --sync\nunregister big --sync\n'
ktap_check "direct_set_after_bpf" bp_ctl "d:after/ $F\ncreate after\nunregister after --sync\n"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
