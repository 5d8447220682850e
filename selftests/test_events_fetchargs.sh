#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: fetch arguments on batchprobe's events give the records kprobe_events' give, on the same calls
# requires: CONFIG_KPROBE_EVENTS
#
# The kernel is the oracle. Each line below is defined twice: in tracefs'
# kprobe_events (group kpfa, its event named k_NAME) and in a batchprobe
# set created with --events (group bpfa, event NAME, and NAME_i through
# int3 kprobes), on openat's syscall entry. Both events are enabled together, only for the calls of bpopen
# (a filter on comm), and bpopen opens a path that does not exist three
# times: every call writes a record to each, and the two lists of records
# must be equal, text after the event name (for a return probe, but for the
# CALLER of its "(CALLER <- FUNC)": of two kretprobes on one function, one
# sees the other's trampoline as its caller; FUNC is compared). Each event's format must be the
# kernel's but for its name and ID, and each event's binary records, read
# through perf, the kernel's twin's bytes. The lines cover every load (%REG,
# $argN, $stack, $stackN, $comm, \IMM, \"STR"), kernel and user
# dereferences, nested, every kind of type (u, s, x, char, string,
# ustring, symbol, symstr, a bitfield, an array), reads that fault (and a
# kernel string read of a user address, which x86 makes a user read), and a
# return probe's $retval and $argN (kept at entry: the kretprobe's entry
# data), and @SYM (a data symbol's bytes and the string at it: batchprobe
# reads the address from /proc/kallsyms). And what BTF gives (CONFIG_PROBE_EVENTS_BTF_ARGS, every flavor):
# on do_sys_openat2(int dfd, const char __user *filename, struct open_how
# *how), an unnamed $argN named and typed after the parameter, parameters
# by name (a string through a char pointer), and an unnamed $retval typed
# as the function returns, at entry and at return.
#
# Then what is refused, each with its reason and the kernel's caret: a bad
# fetch argument (the kernel's error_log words and column), an @SYM the kernel lacks, a register on a d: line (an fprobe event's
# arguments), and a set with arguments
# created with --no-events; and a refused line changes nothing.
. ./bp_lib.sh
T=/sys/kernel/tracing
ktap_plan 90
ENOENT=2 EINVAL=22
F=__x64_sys_openat
F2=do_sys_openat2
PATHNAME=/bpfa-no-such-file
# The user's registers (an openat's arguments: di, si, dx, r10).
U='$arg1'
LINES="p:G/o_regs $F dfd=+112($U):s32 name=+0(+104($U)):ustring flags=+96($U):x32 mode=+56($U):u16
p:G/o_loads $F %di a1=$U:x64 %sp:x64 \$stack:x64 \$stack0:x64 \$stack1:u32 c=\$comm cs=\$comm:string
p:G/o_types $F ch=+u0(+104($U)):char arr=+104($U):u8[4] bf=+112($U):b4@2/8 s8=+104($U):s8 x16=+104($U):x16 s64=+112($U):s64
p:G/o_imm $F im=\\42 neg=\\-1:s16 lit=\\\"lit\" sym=%ip:symbol ss=%ip:symstr
p:G/o_fault $F fs=+0(+112($U)):string fu=+0(+112($U)):ustring ks=+0(+104($U)):string us=+u0(+104($U)):ustring
r:G/o_ret $F ret=\$retval:s64 rx=\$retval:x32
r:G/o_reta $F a1=$U:x64 dfd=+112($U):s32 name=+0(+104($U)):ustring ret=\$retval:s64
p:G/o_btf $F2 \$arg1 filename:ustring \$arg3 m=+8(\$arg3):x32
r:G/o_btfr $F2 \$retval \$arg1 filename:ustring
r:G/o_btfs $F \$retval
p:G/o_sym $F ban=@linux_banner:string w=@linux_banner+6:x16 b=@linux_banner-0:u8"
NAMES="o_regs o_loads o_types o_imm o_fault o_ret o_reta o_btf o_btfr o_btfs o_sym"

echo 0 > $T/tracing_on
echo > $T/trace
: > $T/error_log
printf "%s\n" "$LINES" | sed "s|^\(.\):G/|\1:kpfa/k_|" > /tmp/kpfa.lines
ktap_check "kprobe_events_takes_them" sh -c "cat /tmp/kpfa.lines >> $T/kprobe_events"
sed 's/^/# /' $T/error_log
bp_load
# Each line twice: the backend batchprobe picks (an fprobe where no
# argument needs what only int3 gives), and int3 (p!:, r!:, event NAME_i).
printf "%s\n" "$LINES" | sed "s|^\(.\):G/|\1:bpfa/|" > /tmp/bpfa.lines
printf "%s\n" "$LINES" | sed "s|^\(.\):G/\([a-z_]*\) |\1!:bpfa/\2_i |" >> /tmp/bpfa.lines
# Two unnamed lines on one function share its event (p_SYM_0), as
# kprobe_events appends a probe to an event of its name: the same field,
# each probe reading its own argument into it (dfd, then flags).
SHARED=p_${F}_0
printf "%s\n" "p:bpfa/ $F v=+112($U):s32" "p!:bpfa/ $F v=+96($U):s32" >> /tmp/bpfa.lines
printf 'create bpfa --events\nenable bpfa\n' >> /tmp/bpfa.lines
bp_ctl_file "batchprobe_takes_them" /tmp/bpfa.lines
# fprobes: o_regs, o_types, o_fault, o_btf, o_sym and the shared p:; a return
# fprobe: o_ret, o_btfs; int3: the _i lines, %REG and %ip (o_loads,
# o_imm), $argN at a return (o_reta, o_btfr) and the shared p!:.
served="$(bp_field bpfa kprobes) $(bp_field bpfa kretprobes) $(bp_field bpfa fprobes) $(bp_field bpfa fretprobes)"
ktap_check "served_by_backends" test "$served" = "10 6 6 2"

# format: the kernel's, but for the name and ID lines.
for k in $NAMES; do for e in $k ${k}_i; do
    if bp_same_format $T/events/kpfa/k_$k/format $T/events/bpfa/$e/format; then
        ktap_pass "format_$e"
    else
        ktap_fail "format_$e"
    fi
done; done

# The same calls, both events on.
for g in kpfa bpfa; do
    echo 'comm == "bpopen"' > $T/events/$g/filter
    echo 1 > $T/events/$g/enable
done
echo 1 > $T/tracing_on
failed=$(bpopen $PATHNAME 3)
echo 0 > $T/tracing_on
for g in kpfa bpfa; do echo 0 > $T/events/$g/enable; echo 0 > $T/events/$g/filter; done
ktap_check "three_failed_opens" test "$failed" = 3
for k in $NAMES; do for e in $k ${k}_i; do
    want=$(grep -v '^#' $T/trace | sed -n "s/.* k_$k: //p" | sed 's/^([^<]* <- /(CALLER <- /')
    got=$(grep -v '^#' $T/trace | sed -n "s/.* $e: //p" | sed 's/^([^<]* <- /(CALLER <- /')
    bp_same_records "records_$e" "$want" "$got" 3
done; done
# The shared event: each probe's own argument, three times each.
shared=$(grep -v '^#' $T/trace | sed -n "s/.* $SHARED: .* v=//p" | sort | uniq -c | awk '{ print $1 "x" $2 }' | tr '\n' ' ')
if [ "$shared" = "3x-100 3x524288 " ]; then
    ktap_pass "shared_event_each_its_own"
else
    ktap_fail "shared_event_each_its_own" "values (count x value): $shared"
fi
# The binary records, decoded as perf and trace-cmd decode them, with the
# event's format: each event opened with perf_event_open(2) (a raw sample
# per hit) together with its kernel twin, on the same three calls
# (bpperfopen): every field but the common ones (a __data_loc field: the
# bytes it points at) equal, but a return's __probe_ret_ip (the caller:
# see above); three samples each.
for k in $NAMES; do
    bpperfopen $PATHNAME 3 kpfa/k_$k bpfa/$k bpfa/${k}_i |
        sed 's/__probe_ret_ip=[0-9a-f]*/__probe_ret_ip=CALLER/g' > /tmp/bpfa.raw
    want=$(sed -n 1p /tmp/bpfa.raw)
    # One decoded record, for the log.
    [ "$k" = o_regs ] && ktap_print_msg "kprobe_events' o_regs, decoded: $(echo "$want" | cut -d' ' -f1-3)"
    i=2
    for e in $k ${k}_i; do
        bp_same_raw "raw_$e" "$want" "$(sed -n ${i}p /tmp/bpfa.raw)" "kprobe_events'"
        i=$((i + 1))
    done
done
# The path the user passed, read through two dereferences.
ktap_check "reads_the_path" sh -c "grep -q ' o_regs: .*name=\"$PATHNAME\"' $T/trace"
ktap_check "records_count_hits" test "$(bp_probe_hits bpfa o_regs)" -ge 3
bp_ctl 'unregister bpfa --sync\n'
echo > $T/kprobe_events

# docs/control.md's recipe: the kprobe_events file itself, as one batch (its
# group kpfa becomes a set, created and enabled: its probes, each named
# on a line of its own, get their events without --events).
sh ./kprobe_events_to_batch.sh /tmp/kpfa.lines > /tmp/kpfa.batch
if bpwrite $BP_CTL < /tmp/kpfa.batch; then
    ktap_pass "recipe_takes_the_file"
else
    ktap_fail "recipe_takes_the_file"
    sed 's/^/# /' $BP_DEBUGFS/last_error
fi
ktap_check "recipe_set_enabled" test "$(bp_state kpfa)" = enabled
ktap_check "recipe_events_there" test -e $T/events/kpfa/k_o_reta/format
bp_ctl 'unregister kpfa --sync\n'

# Refusals: the kernel's words and caret for a bad argument.
# staged: the probe lines staged (the sets file's "# N probe(s) staged").
staged() {
    _n=$(sed -n 's/^# \([0-9]*\) probe(s) staged.*/\1/p' $BP_DEBUGFS/sets)
    echo "${_n:-0}"
}
# last_caret FILE: the column of the caret on FILE's last line, after its
# two-space indent (error_log's is "  Command: ").
bad="p:bpe/x $F a=%di b=%zz"
: > $T/error_log
echo "$bad" >> $T/kprobe_events 2>/dev/null
kwords=$(grep 'error: ' $T/error_log | tail -1 | sed 's/.*error: //')
kcaret=$(tail -1 $T/error_log) kprefix="  Command: "
kcol=$(( ${#kcaret} - ${#kprefix} - 1 ))
# (bp_ctl's text is a printf format.)
pct() { echo "$1" | sed 's/%/%%/g'; }
bp_expect_err "bad_register" "$EINVAL" "$(pct "$bad")\n"
bcaret=$(tail -1 $BP_DEBUGFS/last_error)
bcol=$(( ${#bcaret} - 3 ))
ktap_check "bad_register_words" grep -qF "$kwords" $BP_DEBUGFS/last_error
if [ -n "$kwords" ] && [ "$bcol" -eq "$kcol" ]; then
    ktap_pass "bad_register_caret"
else
    ktap_fail "bad_register_caret" "the kernel's column $kcol ($kwords), batchprobe's $bcol"
    sed 's/^/# /' $BP_DEBUGFS/last_error
fi
ktap_check "refused_line_not_staged" test "$(staged)" -eq 0
# A symbol /proc/kallsyms does not list (kprobe_events: ENOENT when the
# probe is registered, no error_log line).
bp_expect_err "unknown_sym_enoent" "$ENOENT" "p:bpe/x $F j=@no_such_symbol_bp\n"
ktap_check "unknown_sym_says_why" grep -q 'Invalid probed address or symbol' $BP_DEBUGFS/last_error
# Looked up after the lines are read, yet the first failing line is the
# one reported: the unknown symbol's, before a later bad argument's.
bp_expect_err "earlier_unknown_sym_first" "$ENOENT" "p:bpe/x $F j=@no_such_symbol_bp\np:bpe/y $F a=%%zz\n"
ktap_check "earlier_unknown_sym_line" grep -q '^line 1: ' $BP_DEBUGFS/last_error
# A d: line's arguments are an fprobe event's: no register (the rest:
# test_direct_records.sh).
bp_expect_err "direct_register_refused" "$EINVAL" "d:bpe/x $F a=%%di\n"
bp_expect_err "args_need_events" "$EINVAL" "p:bpe/x $F a=%%di\ncreate bpe --no-events\n"
ktap_check "args_need_events_says_why" grep -q 'fill trace records: --no-events makes none' $BP_DEBUGFS/last_error
ktap_check "nothing_left" sh -c "! grep -q '^bpe ' $BP_DEBUGFS/sets"
ktap_check "nothing_staged" test "$(staged)" -eq 0
# As the tests found it: tracing on.
echo 1 > $T/tracing_on
ktap_finish
