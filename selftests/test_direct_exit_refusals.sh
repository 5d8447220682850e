#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the exit trampoline refuses, by name, functions whose frame it cannot reproduce; globs skip and count them
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF
# speed: slow
#
# The exit trampoline calls a function's body with its own frame where the
# caller's stack arguments were, so (src/direct/signature.rs) it takes only
# functions whose arguments all fit the six argument registers (BTF
# prototypes), that are not variadic and that return. A named function
# that breaks the rule fails its set with EOPNOTSUPP, named in last_error; a
# glob skips it and counts it; switching a live set to the exit trampoline
# is refused the same way, and the set keeps its trampoline.
. ./bp_lib.sh
ktap_plan 17
EOPNOTSUPP=95
base=$(direct_attached)
says() { grep -q "$1" $BP_DEBUGFS/last_error || { cat $BP_DEBUGFS/last_error; return 1; }; }
# A variadic function ftrace can trace (lib/ may be built without fentry
# calls; fs/seq_file.c is not).
V=
for f in seq_printf kasprintf scnprintf snprintf sprintf; do
    grep -qx "$f" /sys/kernel/tracing/available_filter_functions && { V=$f; break; }
done
[ -n "$V" ] || bp_skip_all "no traceable variadic function (seq_printf, kasprintf, ...)"
echo "# variadic function: $V"

bp_load
bp_expect_err "variadic_einval" $EOPNOTSUPP "d:r1/x $V\ncreate r1 --exit\n"
ktap_check "variadic_named" says "$V.*variadic"
# do_mmap(file, addr, len, prot, flags, vm_flags, pgoff, populate, uf):
# nine arguments, three on the stack.
bp_expect_err "stack_arguments_einval" $EOPNOTSUPP 'd:r2/x do_mmap\ncreate r2 --exit\n'
ktap_check "stack_arguments_named" says 'do_mmap.*arguments on the stack'
bp_expect_err "noreturn_einval" $EOPNOTSUPP 'd:r3/x do_exit\ncreate r3 --exit\n'
ktap_check "noreturn_named" says 'do_exit.*never returns'
# A name the kernel has twice (two static functions): BTF may hold only
# one of their prototypes, so neither is taken.
D=$(grep -i ' t ' /proc/kallsyms | grep -v '\[' | awk '{ print $3 }' | sort | uniq -d |
    grep -xF -f - /sys/kernel/tracing/available_filter_functions | grep -v '\.' | head -1)
if [ -n "$D" ]; then
    echo "# a name kallsyms has twice: $D"
    bp_expect_err "same_name_twice_refused" $EOPNOTSUPP "d:r5/x $D\ncreate r5 --exit\n"
else
    ktap_skip "same_name_twice_refused" "no ftrace-able name twice in kallsyms"
fi
ktap_check "nothing_attached_after_refusals" test "$(direct_attached)" -eq "$base"
# A glob: the *printf* functions ftrace can trace that take a va_list (a
# pointer) are kept, the variadic ones skipped, $V among them.
ktap_check "glob_with_exit" bp_ctl 'd:g/ *printf*\ncreate g --exit\n'
kept=$(bp_field g direct) skipped=$(bp_field g skipped)
echo "# *printf*: $kept kept, $skipped skipped"
ktap_check "glob_kept_some" test "$kept" -gt 0
ktap_check "glob_skipped_some" test "$skipped" -gt 0
ktap_check "stats_lists_the_variadic_one_skipped" grep -q "^  skipped $V errno=-95" $BP_DEBUGFS/stats
# A live entry-only set with a variadic function may not switch.
ktap_check "entry_set_on_variadic" bp_ctl "d:r4/x $V\ncreate r4\nenable r4\n"
bp_expect_err "switch_to_exit_refused" $EOPNOTSUPP 'direct r4 exit\n'
ktap_check "switch_refusal_named" says "r4: direct $V.*variadic"
ktap_check "set_kept_its_trampoline" test "$(bp_stats_field r4 mode)" = count
bp_ctl 'unregister g --sync\nunregister r4 --sync\n'
bp_wait_unpinned
rmmod batchprobe
ktap_finish
