#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: an exit set on every eligible function whose return records read $arg1 deepens the deepest kernel stack by the 32-byte frame of the trampoline that keeps one argument register (not the 72 bytes of all six), and a deep path still fits the stack
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF, CONFIG_STACK_TRACER, CONFIG_UNWINDER_ORC, CONFIG_KPROBE_EVENTS
# speed: slow
#
# test_exit_stack_depth.sh's measurement and pass rule, with ` $arg1` on
# both of its `d:` lines (every function gets an event whose return
# record reads the first argument): the set's trampoline keeps rdi while
# the body runs. Before 2026-12-06 any `$argN` put the set on a 72-byte
# frame, within 10% of the 80-byte one that fails the deep-path rule on
# test (the soundness review of 2026-12-05, finding 2).
BP_STACK_KEEP=1
. ./test_exit_stack_depth.sh
