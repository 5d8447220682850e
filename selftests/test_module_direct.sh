#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: d: lines on a module's functions (MOD:SYM, MOD:GLOB, *:GLOB): direct calls into the module's text count what the kernel's own probes on the same functions count; an exit set on them reads the module's BTF for prototypes and errno classes (--hist --errors) and its return values equal kprobe_events' kretprobe's; the set holds the module loaded until it is unregistered (rmmod: in use, as a BPF trampoline on a module's function holds it)
# requires: bp_foreign.ko (selftests/modules: built with BTF), CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF_MODULES, CONFIG_KPROBE_EVENTS, CONFIG_FPROBE_EVENTS
#
# The kernel is the oracle: kprobe_events' probes on the same functions
# (group kmd: a kprobe on bp_foreign_extra_a, a kretprobe on
# bp_foreign_errno reading its return value as an s32) count the calls a
# write of N to bp_foreign's poke parameter makes (bp_foreign_extra_a, N
# times) and its errs parameter (bp_foreign_errno(i) for i < N: -ENOENT,
# -EINVAL or i). The entry set (bmd) and the exit set (bme, --exit --hist
# --errors, its line's return records on) count the same calls; the exit
# set's return values are the kretprobe's, call by call, and its errno
# counts the number of each error the kretprobe saw; a d: line's fetch
# arguments are named and typed by the module's BTF and write the records
# the kernel's fprobe event on the function writes; the entry set switched
# to the exit trampoline live counts returns too. While a set has direct
# calls in the module it holds it: `sets` says holds=bp_foreign, rmmod says
# in use; once the set is unregistered the module unloads. Refused: a
# module that is not loaded (a d: line does not wait), a function the
# module lacks, batchprobe itself, a function the exit trampoline cannot
# call (bp_foreign_stack7: seven arguments), by the module's BTF.
. ./bp_lib.sh
T=/sys/kernel/tracing
ktap_plan 52
ENOENT=2 EPERM=1 EOPNOTSUPP=95
M=bp_foreign A=bp_foreign_extra_a E=bp_foreign_errno


bp_load insmod_batchprobe
rmmod $M 2>/dev/null
base=$(direct_attached)
bp_expect_err "not_loaded_enoent" $ENOENT "d:bmd/ $M:$A\ncreate bmd\n"
ktap_check "not_loaded_says_why" grep -q "module $M: not loaded (a d: line" $BP_DEBUGFS/last_error
bp_expect_err "glob_not_loaded_enoent" $ENOENT "d:bmd/ $M:bp_foreign_*\ncreate bmd\n"
ktap_check "nothing_made" sh -c "! grep -q '^bmd ' $BP_DEBUGFS/sets"

ktap_check "insmod_foreign" insmod "$BP_FOREIGN"
echo 0 > $T/tracing_on
echo > $T/trace
ktap_check "kprobe_events_on_them" sh -c "printf '%s\n' 'p:kmd/ka $M:$A' 'r:kmd/kr $M:$E rv=\$retval:s32' >> $T/kprobe_events"
echo 1 > $T/events/kmd/enable
bp_expect_err "missing_function_enoent" $ENOENT "d:bmd/ $M:no_such_function\ncreate bmd\n"
bp_expect_err "self_eperm" $EPERM "d:bmd/ batchprobe:bp_rust_module_coming\ncreate bmd\n"

# Entry: an explicit line and a glob over the same module (the glob leaves
# the explicit line's function to it).
ktap_check "create_entry_set" bp_ctl "d:bmd/da $M:$A\nd:bmd/ $M:bp_foreign_extra_*\ncreate bmd\nenable bmd\n"
grep "^bmd " $BP_DEBUGFS/sets | sed 's/^/# /'
ktap_check "explicit_and_glob_two_calls" test "$(bp_field bmd direct)" = 2
ktap_check "sets_says_it_holds" test "$(bp_field bmd holds)" = $M
ktap_check "stats_says_it_holds" grep -q "^set bmd .* holds=$M\$" $BP_DEBUGFS/stats
ktap_check "attached_in_module_text" test "$(($(direct_attached) - base))" = 2
grep "\[$M\]" $T/enabled_functions | sed 's/^/# /'
ktap_check "rmmod_refused_in_use" sh -c "! rmmod $M 2>/dev/null && test -d /sys/module/$M"
echo 1 > $T/tracing_on
echo 5 > /sys/module/$M/parameters/poke
echo 0 > $T/tracing_on
ktap_check "counts_as_the_kernel" test "$(bp_probe_hits bmd da)" = 5 -a "$(bp_nhit ka)" = 5
# A switch of the live set to the exit trampoline checks its functions
# against the module's BTF, as create --exit does.
ktap_check "switch_to_exit_trampoline" bp_ctl 'direct bmd exit\n'
echo 3 > /sys/module/$M/parameters/poke
ktap_check "exits_after_the_switch" test "$(bp_exit_field bmd da exits)" = 3 -a "$(bp_probe_hits bmd da)" = 8
ktap_check "unregister_entry_set" bp_ctl 'unregister bmd --sync\n'
ktap_check "entry_detached" test "$(direct_attached)" -eq "$base"
ktap_check "module_unloads_after" rmmod $M
ktap_check "insmod_again" insmod "$BP_FOREIGN"

# *:GLOB: every loaded module's functions the glob matches (only
# bp_foreign has these names).
ktap_check "every_module_glob" bp_ctl "d:bma/ *:bp_foreign_extra_*\ncreate bma\n"
ktap_check "every_module_glob_holds_it" test "$(bp_field bma direct) $(bp_field bma holds)" = "2 $M"
ktap_check "unregister_every_module_glob" bp_ctl 'unregister bma --sync\n'

# Fetch arguments on a d: line on a module's function: named and typed by
# the module's BTF, as the kernel's fprobe event on the function is (its
# f: finds the function's BTF in the module's): the same format, and the
# same records of the same calls.
ktap_check "fprobe_event_on_it" sh -c "echo 'f:kmf/kf $E \$arg1 \$arg2' >> $T/dynamic_events"
ktap_check "d_line_args_by_module_btf" bp_ctl "d:bmf/fa $M:$E \$arg1 \$arg2\ncreate bmf\nenable bmf\n"
ktap_check "same_format_as_fprobe_event" bp_same_format $T/events/kmf/kf/format $T/events/bmf/fa/format
echo > $T/trace
echo 1 > $T/events/kmf/kf/enable
echo 1 > $T/events/bmf/fa/enable
echo 1 > $T/tracing_on
echo 4 > /sys/module/$M/parameters/errs
echo 0 > $T/tracing_on
echo 0 > $T/events/kmf/kf/enable
echo 0 > $T/events/bmf/fa/enable
records() { grep -v '^#' $T/trace | sed -n "s/.* $1: //p"; }
bp_same_records "records_as_the_fprobe_event" "$(records kf)" "$(records fa)" 4
ktap_check "unregister_args_set" bp_ctl 'unregister bmf --sync\n'
echo '-:kmf/kf' >> $T/dynamic_events

# Exit: the module's BTF says bp_foreign_errno returns an int, the
# extra functions nothing, and bp_foreign_stack7 takes 7 arguments (one
# on the stack), which the exit trampoline refuses: on its own line the
# set fails; as a glob's only member (beside vfs_read) it is skipped and
# its module not held;
# a live entry set with it may not switch to the exit trampoline.
ktap_check "module_has_btf" test -s /sys/kernel/btf/$M
bp_expect_err "exit_refuses_stack_arguments" $EOPNOTSUPP "d:bmr/x $M:bp_foreign_stack7\ncreate bmr --exit\n"
ktap_check "refusal_says_why" grep -q "bp_foreign:bp_foreign_stack7.*more than 6 registers" $BP_DEBUGFS/last_error
ktap_check "glob_of_refused_made" bp_ctl "d:bmr/ $M:bp_foreign_stack*\nd:bmr/ vfs_read\ncreate bmr --exit\n"
ktap_check "refused_member_skipped_module_not_held" test "$(bp_field bmr direct)/$(bp_field bmr skipped)/$(bp_field bmr holds)" = "1/1/"
ktap_check "entry_set_on_it" bp_ctl "d:bms/ $M:bp_foreign_stack7\ncreate bms\n"
bp_expect_err "switch_refused_by_module_btf" $EOPNOTSUPP 'direct bms exit\n'
ktap_check "unregister_refusal_sets" bp_ctl 'unregister bmr\nunregister bms --sync\n'
ktap_check "create_exit_set" bp_ctl "d:bme/x $M:$E rv=\$retval:s32\nd:bme/ $M:bp_foreign_extra_*\ncreate bme --exit --hist --errors\nenable bme\n"
ktap_check "exit_set_three_calls" test "$(bp_field bme direct) $(bp_field bme holds)" = "3 $M"
echo 1 > $T/events/bme/x/enable
kr0=$(bp_nhit kr)
echo > $T/trace
echo 1 > $T/tracing_on
echo 8 > /sys/module/$M/parameters/errs
echo 2 > /sys/module/$M/parameters/poke
echo 0 > $T/tracing_on
bp_ctl 'disable bme\n'
echo 0 > $T/events/bme/x/enable
grep -E "^set bme|^  direct|^    (hist|errors)" $BP_DEBUGFS/stats | sed 's/^/# /'
kv=$(bp_rv_values kr)
ktap_check "kernel_saw_8_returns" test "$(($(bp_nhit kr) - kr0))" = 8
ktap_check "exits_as_the_kernel" test "$(bp_exit_field bme x exits)" = 8
bp_same_records "return_values_as_the_kernel" "$kv" "$(bp_rv_values x)" 8
ktap_check "ENOENT_as_the_kernel" test "$(bp_line_field bme errors x ENOENT)" = "$(echo "$kv" | grep -cx -- -$ENOENT)"
ktap_check "EINVAL_as_the_kernel" test "$(bp_line_field bme errors x EINVAL)" = "$(echo "$kv" | grep -cx -- -22)"
ktap_check "hist_counts_each_call" test "$(bp_line_field bme hist x count)" = 8
ktap_check "void_functions_no_errors" test -z "$(bp_line_field bme errors $M:$A total)" -a "$(bp_exit_field bme $M:$A exits)" = 2
ktap_check "unregister_exit_set" bp_ctl 'unregister bme --sync\n'
echo 0 > $T/events/kmd/enable
echo > $T/kprobe_events
ktap_check "detached_all" test "$(direct_attached)" -eq "$base"
ktap_check "rmmod_foreign" rmmod $M
ktap_check "unpinned" bp_wait_unpinned
ktap_check "rmmod" rmmod batchprobe
ktap_finish
