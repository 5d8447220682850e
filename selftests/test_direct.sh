#!/bin/sh
# ftrace-direct sets: one trampoline on 1000+ functions attached in one pass,
# counts, a live trampoline switch, detach, refusals that leave nothing
# attached, unload with detach pending, and coexistence with the function
# tracer and kprobes on the same function.
. ./bp_lib.sh
ktap_plan 30
T=/sys/kernel/tracing
hits() { bp_probe_hits "$1" "$2"; }
base=$(direct_attached)

ktap_check "insmod" insmod "$BP_KO"
ktap_check "attach_1001_functions" bp_ctl 'd:big/pid __x64_sys_getppid\nd:big * max=1000\ncreate big\nenable big\n'
ktap_check "set_has_1001_direct" test "$(bp_field big direct)" = 1001
ktap_check "ftrace_sees_1001_direct_callers" test "$(direct_attached)" -eq $((base + 1001))
bphit 100 > /dev/null
ktap_check "counts_calls" test "$(hits big pid)" -ge 100
before=$(hits big pid)
ktap_check "retarget_to_record_live" bp_ctl 'direct big record\n'
bphit 5 > /dev/null
ktap_check "record_mode_counts" test "$(hits big pid)" -ge $((before + 5))
# Shown as %pK: hashed with kptr_restrict=0 (the default), raw at 1 (root
# has CAP_SYSLOG), zeros at 2; recorded in any case.
ktap_check "record_mode_records_first_arg" sh -c "grep ' pid ' $BP_DEBUGFS/stats | grep -q 'last_arg=[0-9a-f]*[1-9a-f]'"
ktap_check "still_attached_after_switch" test "$(direct_attached)" -eq $((base + 1001))
ktap_check "retarget_back_to_count" bp_ctl 'direct big count\n'
bp_expect_err "second_direct_caller_ebusy" 16 'd:dup/again __x64_sys_getppid\ncreate dup\n'
ktap_check "ebusy_names_symbol" grep -q '__x64_sys_getppid' $BP_DEBUGFS/last_error
ktap_check "ebusy_left_nothing_attached" test "$(direct_attached)" -eq $((base + 1001))
bp_expect_err "same_function_twice_in_a_set_ebusy" 16 'd:tw/a __x64_sys_getpid\nd:tw/b __x64_sys_getpid\ncreate tw\n'
ktap_check "twice_left_nothing_attached" test "$(direct_attached)" -eq $((base + 1001))
# A text symbol ftrace cannot trace (not in available_filter_functions).
untraceable=$(grep ' [tT] ' /proc/kallsyms | awk '{print $3}' | grep -v '\.' | head -400 | \
    while read -r s; do grep -qx "$s" $T/available_filter_functions || { echo "$s"; break; }; done)
bp_expect_err "not_ftrace_able_fails" 22 "d:nf/x $untraceable\nd:nf/y __x64_sys_getpid\ncreate nf\n"
ktap_check "not_ftrace_able_names_symbol" grep -q "$untraceable" $BP_DEBUGFS/last_error
ktap_check "not_ftrace_able_left_nothing" test "$(direct_attached)" -eq $((base + 1001))
ktap_check "detach_sync" bp_ctl 'unregister big --sync\n'
ktap_check "detached_all" test "$(direct_attached)" -eq "$base"
frozen=$(bp_field big hits)
bphit 50 > /dev/null
ktap_check "no_counts_after_detach" test "$(bp_field big hits)" = "$frozen"
# The benchmark baselines: one ops per function, and an fprobe.
ktap_check "ops_per_function_attach" bp_ctl 'd:ob * max=8\ncreate ob --one-by-one\n'
ktap_check "ops_per_function_attached_8" test "$(direct_attached)" -eq $((base + 8))
ktap_check "ops_per_function_detach" sh -c ". ./bp_lib.sh; bp_ctl 'unregister ob --sync\n' && test \$(grep -c 'direct-->' $T/enabled_functions) -eq $base"
traced=$(wc -l < $T/enabled_functions)
ktap_check "fprobe_attach_and_count" sh -c ". ./bp_lib.sh; bp_ctl 'd:fp/x __x64_sys_getppid\ncreate fp --fprobe\nenable fp\n' && bphit 10 >/dev/null && test \$(bp_probe_hits fp x) -ge 10"
bp_expect_err "fprobe_set_cannot_retarget" 22 'direct fp record\n'
ktap_check "fprobe_detach" sh -c ". ./bp_lib.sh; bp_ctl 'unregister fp --sync\n' && test \$(wc -l < $T/enabled_functions) -eq $traced"
# Same function: function tracer, a kprobe and a direct call together.
echo __x64_sys_getppid > $T/set_ftrace_filter
echo function > $T/current_tracer
echo > $T/trace
ktap_check "coexist_with_tracer_and_kprobe" bp_ctl 'p:co/kp __x64_sys_getppid\nd:co/dc __x64_sys_getppid\ncreate co\nenable co\n'
bphit 20 > /dev/null
ktap_check "all_three_see_the_calls" sh -c ". ./bp_lib.sh; test \$(bp_probe_hits co kp) -ge 20 && test \$(bp_probe_hits co dc) -ge 20 && test \$(grep -c getppid $T/trace) -ge 20"
echo nop > $T/current_tracer
echo > $T/set_ftrace_filter
ktap_check "unload_with_detach_pending" sh -c ". ./bp_lib.sh; bp_ctl 'unregister co\n' && rmmod batchprobe && test \$(grep -c 'direct-->' $T/enabled_functions) -eq $base"
ktap_finish
