#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: d: lines with fetch arguments write the records fprobe events write: entry records from a direct set, return records with the call's duration from an exit set
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF, dynamic_events
#
# The kernel is the oracle: each line is defined twice, as an fprobe event
# in dynamic_events (group kpdr, event k_NAME) and as a d: line of a
# batchprobe set (group bpdr, event NAME), and both are enabled for the
# same calls (a comm filter: bpopen's three failed opens).
# - Entry records (a set made without --exit), on do_sys_openat2(dfd,
#   filename, how): BTF's names and types for unnamed $argN, a parameter by
#   name read as a user string, a dereference of a pointer argument,
#   $stack0 (the return address into the caller), $comm. Format and record
#   text equal to f:'s, but for name and ID.
# - Return records (a set made with --exit), on openat's syscall function:
#   $retval (BTF-typed, and as x32), $comm, and the call's arguments, kept
#   at entry (the exit trampoline that keeps the argument registers in its
#   frame): the syscall's pt_regs pointer, dereferenced at return for dfd and
#   the path (a user string); the same as f:SYM%return's, but
#   for the caller (the fprobe's own return hook on that call moves the
#   return address each sees) and the duration: a field of ours after the
#   arguments' fixed fields, printed last; the format is f:'s with it.
# - Durations: a return record of a 70-ms sleep says at least 70 ms.
# - A task killed inside a function of a set on that trampoline is counted
#   gone (rust/exit_tasks.c knows its return point), and the module unloads.
# - Names: an unnamed d: line's event is SYM__entry, in an exit set
#   SYM__exit, as fprobe events name them.
# - Refusals: %REG (fprobe events take no register: the kernel's words),
#   $retval in a set made without --exit (the line named), fetch arguments
#   on the --fprobe baseline, an argument named duration in an exit set;
#   a refused write changes nothing.
. ./bp_lib.sh
T=/sys/kernel/tracing

have() { grep -qx "$1" $T/available_filter_functions; }
first_of() { for f; do have "$f" && { echo "$f"; return; }; done; }
F=$(first_of do_sys_openat2)
SYS=$(first_of __x64_sys_openat __do_sys_openat)
SLEEP=$(first_of __x64_sys_ppoll __do_sys_ppoll)
if [ -z "$F" ] || [ -z "$SYS" ] || [ -z "$SLEEP" ]; then
    bp_skip_all "no traceable do_sys_openat2, openat or ppoll function"
fi
# fprobe events: the oracle. A kernel without them (CONFIG_FPROBE_EVENTS:
# tracefs' README lists their syntax) skips; one that has them and refuses
# the line fails, saying why.
grep -qF 'f[:[<group>/][<event>]] <func-name>' $T/README ||
    bp_skip_all "no fprobe events in this kernel (CONFIG_FPROBE_EVENTS: not in tracefs' README)"
echo > $T/dynamic_events
echo "f:kpdr/k_probe $F" >> $T/dynamic_events 2>/dev/null ||
    bp_bail_out "dynamic_events refused f:kpdr/k_probe $F: $(tail -2 $T/error_log | tr '\n' ' ')"
echo > $T/dynamic_events
ktap_plan 40
EINVAL=22 EOPNOTSUPP=95
PATHNAME=/bpdr-no-such-file
bpopen=$(command -v bpopen) bpsleep=$(command -v bpsleep)

ENTRY="G/e $F \$arg1 filename:ustring \$arg3 m=+8(\$arg3):x32 s0=\$stack0:x64 c=\$comm"
EXIT="G/x $SYS \$retval rx=\$retval:x32 c=\$comm dfd=+112(\$arg1):s32 name=+0(+104(\$arg1)):ustring"

echo 0 > $T/tracing_on
echo > $T/trace
printf 'f:%s\nf:%s\n' "$(echo "$ENTRY" | sed 's|^G/|kpdr/k_|')" \
    "$(echo "$EXIT" | sed 's|^G/\([a-z]*\) \([^ ]*\)|kpdr/k_\1 \2%return|')" > /tmp/kpdr.lines
ktap_check "fprobe_events_take_them" sh -c "cat /tmp/kpdr.lines >> $T/dynamic_events"
bp_load
ktap_check "entry_set" bp_ctl "d:$(echo "$ENTRY" | sed 's|^G/|bpdr/|')\nd:bpdr/ vfs_read\ncreate bpdr\nenable bpdr\n"
ktap_check "exit_set" bp_ctl "d:$(echo "$EXIT" | sed 's|^G/|bpdx/|')\nd:bpdx/ $SLEEP\ncreate bpdx --exit\nenable bpdx\n"
ktap_check "unnamed_entry_event_name" test -e $T/events/bpdr/vfs_read__entry/format
ktap_check "unnamed_exit_event_name" test -e $T/events/bpdx/${SLEEP}__exit/format

# format: f:'s but for name and ID; an exit record's, with its duration.
if bp_same_format $T/events/kpdr/k_e/format $T/events/bpdr/e/format; then
    ktap_pass "entry_format"
else
    ktap_fail "entry_format"
fi
sed -e '/field:u64 duration;/d' -e 's/ duration=%llu//' -e 's/, REC->duration$//' \
    $T/events/bpdx/x/format > /tmp/bpdx.format
if bp_same_format $T/events/kpdr/k_x/format /tmp/bpdx.format; then
    ktap_pass "exit_format_but_duration"
else
    ktap_fail "exit_format_but_duration"
fi
ktap_check "exit_format_has_duration" grep -q 'field:u64 duration;.*size:8;' $T/events/bpdx/x/format
ktap_check "exit_print_fmt_duration" grep -q 'duration=%llu.*REC->duration' $T/events/bpdx/x/format

# The same calls, both on.
for e in kpdr/k_e kpdr/k_x bpdr/e bpdx/x; do
    echo 'comm == "bpopen"' > $T/events/$e/filter
    echo 1 > $T/events/$e/enable
done
echo 1 > $T/tracing_on
failed=$("$bpopen" $PATHNAME 3)
echo 0 > $T/tracing_on
for e in kpdr/k_e kpdr/k_x bpdr/e bpdx/x; do
    echo 0 > $T/events/$e/enable
    echo 0 > $T/events/$e/filter
done
ktap_check "three_failed_opens" test "$failed" = 3
# Text after the event name; a return's caller left out.
records() { grep -v '^#' $T/trace | sed -n "s/.* $1: //p" | sed 's/^(\([^<]*\) <- \([^)]*\))/(<- \2)/'; }
want=$(records k_e) got=$(records e)
bp_same_records "entry_records" "$want" "$got" 3
ktap_check "entry_reads_the_path" test "$(echo "$got" | grep -c "filename=\"$PATHNAME\"")" = 3
exits=$(records x)
want=$(records k_x) got=$(echo "$exits" | sed 's/ duration=[0-9]*$//')
bp_same_records "exit_records_but_duration" "$want" "$got" 3
ktap_check "exit_returns_enoent" test "$(echo "$exits" | grep -c ' rx=0xfffffffe ')" = 3
ktap_check "exit_reads_the_args" test "$(echo "$exits" | grep -c "dfd=-100 name=\"$PATHNAME\"")" = 3
ktap_check "exit_records_have_durations" test "$(echo "$exits" | grep -c ' duration=[1-9][0-9]*$')" = 3
ktap_check "counts_too" test "$(bp_probe_hits bpdr e)" -ge 3
# The binary records, decoded with each event's format as perf and
# trace-cmd decode them (bpperfopen: perf_event_open(2) raw samples of the
# four events on the same three calls): every field but the common ones
# equal f:'s, a return's but for its caller and our duration (a __data_loc
# field is compared by the bytes it points at, which the duration moves).
bpperfopen $PATHNAME 3 kpdr/k_e bpdr/e kpdr/k_x bpdx/x > /tmp/bpdr.raw0
sed -e 's/__probe_ret_ip=[0-9a-f]*/__probe_ret_ip=CALLER/g' -e 's/,duration=[0-9a-f]*//g' \
    /tmp/bpdr.raw0 > /tmp/bpdr.raw
same_raw() { bp_same_raw "$1" "$(sed -n "$2p" /tmp/bpdr.raw)" "$(sed -n "$3p" /tmp/bpdr.raw)" "the fprobe event's"; }
same_raw "raw_entry_records" 1 2
same_raw "raw_exit_records_but_duration" 3 4
# Each of the three return records has a duration, and none is 0.
ktap_check "raw_exit_records_have_durations" test \
    "$(sed -n 4p /tmp/bpdr.raw0 | grep -o ',duration=[0-9a-f]*' | grep -vc '=0*$')" = 3

# A 70-ms sleep's return record says at least 70 ms.
echo > $T/trace
echo 1 > $T/events/bpdx/${SLEEP}__exit/enable
echo 'comm == "bpsleep"' > $T/events/bpdx/${SLEEP}__exit/filter
echo 1 > $T/tracing_on
"$bpsleep" 70
echo 0 > $T/tracing_on
echo 0 > $T/events/bpdx/${SLEEP}__exit/enable
d=$(records ${SLEEP}__exit | sed -n 's/.* duration=\([0-9]*\)$/\1/p' | head -1)
echo "# the sleep's duration: ${d:-none} ns"
ktap_check "sleep_duration_at_least_70ms" test "${d:-0}" -ge 70000000
ktap_check "sleep_duration_below_10s" test "${d:-0}" -lt 10000000000

# hist triggers on the duration, where the kernel has them.
if grep -q 'hist' $T/README 2>/dev/null; then
    ktap_check "hist_trigger_taken" sh -c "echo 'hist:keys=common_pid:vals=duration' > $T/events/bpdx/x/trigger"
    echo 1 > $T/events/bpdx/x/enable
    "$bpopen" $PATHNAME 2 > /dev/null
    echo 0 > $T/events/bpdx/x/enable
    ktap_check "hist_sums_durations" grep -q 'duration: *[1-9]' $T/events/bpdx/x/hist
    echo '!hist:keys=common_pid:vals=duration' > $T/events/bpdx/x/trigger
else
    ktap_skip "hist_trigger_taken" "no CONFIG_HIST_TRIGGERS"
    ktap_skip "hist_sums_durations" "no CONFIG_HIST_TRIGGERS"
fi
bp_ctl 'unregister bpdr --sync\nunregister bpdx --sync\n'
ktap_check "events_gone" test ! -e $T/events/bpdr/e

# A task killed inside get_signal's body (its return record reads an
# argument: the trampoline that keeps them) is counted gone.
before=$(bp_stats_header exit_gone)
ktap_check "args_exit_set_on_get_signal" bp_ctl "d:bpdk/g get_signal \$arg1\ncreate bpdk --exit\nenable bpdk\n"
sleep 100 &
victim=$!
usleep 300000
kill -9 $victim
wait $victim 2>/dev/null
after=$(bp_stats_header exit_gone)
echo "# exit_gone: ${before:-0} before, ${after:-0} after"
ktap_check "killed_inside_counted_gone" test "${after:-0}" -gt "${before:-0}"
bp_ctl 'unregister bpdk --sync\n'
echo > $T/dynamic_events

# Refusals. An fprobe event takes no register, in the kernel's words.
staged() {
    _n=$(sed -n 's/^# \([0-9]*\) probe(s) staged.*/\1/p' $BP_DEBUGFS/sets)
    echo "${_n:-0}"
}
bp_expect_err "register_refused" "$EINVAL" "d:bpe/x $F a=%%di\n"
ktap_check "register_refused_words" grep -Eq 'Invalid \$-variable specified|Invalid fetch argument' $BP_DEBUGFS/last_error
ktap_check "refused_line_not_staged" test "$(staged)" -eq 0
bp_expect_err "retval_needs_exit" "$EINVAL" "d:bpe/x $F \$retval\ncreate bpe\n"
ktap_check "retval_needs_exit_says_so" grep -q -- "unless the set is made with --exit" $BP_DEBUGFS/last_error
ktap_check "retval_needs_exit_names_line" grep -q "d:bpe/x $F" $BP_DEBUGFS/last_error
bp_expect_err "fprobe_baseline_refused" "$EOPNOTSUPP" "d:bpe/x $F \$arg1\ncreate bpe --fprobe\n"
# duration is an exit record's own field.
bp_expect_err "duration_name_refused" "$EINVAL" "d:bpe/x $F duration=\$arg1\ncreate bpe --exit\n"
ktap_check "duration_name_says_why" grep -q "an argument named duration" $BP_DEBUGFS/last_error
ktap_check "nothing_left" test -z "$(bp_live_sets)"
# The exit trampoline keeps the module until no task can be inside it.
ktap_check "unpinned" bp_wait_unpinned
ktap_check "rmmod" rmmod batchprobe
ktap_finish
