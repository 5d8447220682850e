#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a stack trace taken inside a function the exit trampoline called unwinds through the trampoline to the syscall entry
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF, CONFIG_KPROBE_EVENTS, CONFIG_UNWINDER_ORC
#
# getppid in an exit set runs its body called from bp_direct_tramp_exit. A
# kprobe event with a stacktrace trigger on __task_pid_nr_ns (which
# getppid's body calls) records the stack from inside the body: the ORC
# unwinder (objtool wrote the trampoline's entries) must go from the body
# through the trampoline's frame and the fentry return address to the
# syscall entry.
. ./bp_lib.sh
ktap_plan 6
T=/sys/kernel/tracing

bp_load
ktap_check "exit_set_on_getppid" bp_ctl 'd:st/pid '"${BP_GETPPID}"'\ncreate st --exit\nenable st\n'
echo 'p:kprobes/bpst __task_pid_nr_ns' >> $T/kprobe_events
echo stacktrace > $T/events/kprobes/bpst/trigger
echo > $T/trace
echo 1 > $T/events/kprobes/bpst/enable
bphit 1 > /dev/null
echo 0 > $T/events/kprobes/bpst/enable
# The stack of the call from getppid's body: the block with the trampoline.
stack=$(awk '/<stack trace>/ { if (keep) exit; block = ""; grab = 1; next }
    grab && /^ *=> / { block = block $2 "\n"; if ($2 ~ /^bp_direct_tramp_exit/) keep = 1; next }
    grab { grab = 0; if (keep) exit }
    END { printf "%s", keep ? block : "" }' $T/trace)
echo "$stack" | sed 's/^/# /'
order=$(echo "$stack" | grep -n -E '^(bp_direct_tramp_exit|'"${BP_GETPPID}"'|do_syscall_64)' | cut -d: -f2 | tr '\n' ' ')
echo "# order: $order"
ktap_check "stack_has_the_trampoline" test -n "$stack"
ktap_check "body_then_trampoline_then_getppid_then_syscall" \
    sh -c "echo '$order' | grep -q '^${BP_GETPPID}[^ ]* bp_direct_tramp_exit[^ ]* ${BP_GETPPID}[^ ]* do_syscall_64'"
echo '!stacktrace' > $T/events/kprobes/bpst/trigger
echo '-:kprobes/bpst' >> $T/kprobe_events
ktap_check "detach" bp_ctl 'unregister st --sync\n'
bp_wait_unpinned
ktap_check "rmmod" rmmod batchprobe
ktap_finish
