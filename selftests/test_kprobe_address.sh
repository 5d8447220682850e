#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a probe line on an address (MEMADDR) is kprobe_events' own: the same event name (p_0x%p, hashed as the kernel hashes it), an int3 kprobe or kretprobe there, the same records, the same refusals
# requires: CONFIG_KPROBES, CONFIG_KPROBE_EVENTS
#
# kprobe_events reads a target that kstrtoul() takes as an address: a
# kprobe (r: a kretprobe) registered at it, never through a symbol, its
# unnamed event named "%c_0x%p" (a hash of the address, keyed once per
# boot). The same lines are defined in kprobe_events (group kpaddr) and in
# a set (group bpaddr: its explicit lines have events by default), on __x64_sys_openat's
# address (read from /proc/kallsyms) and on an address inside it (the
# first of +4, +5, +8, +9 that kprobe_events takes: past the ENDBR, the
# fentry call, on whichever kernel; and a kretprobe's refusal deeper
# still, past +9): the events must have the kernel's
# names, the probes be int3 ones shown at SYM+OFF in stats, and the
# records of the same opens the same text. Then what both refuse, with the
# kernel's words: $argN and $retval at an address (the kernel looks for no
# function there), an offset or %return after it, a return probe inside
# a function; and what batchprobe alone refuses:
# an address in no symbol (which kprobe_events takes as a module's to
# come, and never probes unless one loads there), a d: line on an address.
# `-:SET/EVENT` drops an unnamed address line by its made name.
. ./bp_lib.sh
T=/sys/kernel/tracing
ktap_plan 28
EINVAL=22
F=__x64_sys_openat
PATHNAME=/bpaddr-no-such-file

bp_load insmod_batchprobe
echo 0 > $T/tracing_on
echo > $T/trace
: > $T/error_log
A=$(awk -v f=$F '$3 == f && ($2 == "T" || $2 == "t") { print $1; exit }' /proc/kallsyms)
ktap_check "address_read" test -n "$A" -a "$A" != 0000000000000000
# ADDR+N, in hex, for a small N (the low 32 bits carry no further in
# kernel text's first function bytes).
plus() {
    _hi=${A%????????} _lo=${A#"$_hi"}
    printf '0x%s%08x' "$_hi" $((0x$_lo + $1))
}
ADDR=0x$A
IN=""
for n in 4 5 8 9; do
    if echo "p:kptry/t $(plus $n)" >> $T/kprobe_events 2>/dev/null; then
        IN=$(plus $n) OFF=$n
        echo "-:kptry/t" >> $T/kprobe_events
        break
    fi
done
# Deeper: past the first instructions (x86's IBT makes +4, after the
# ENDBR, an entry that a kretprobe takes).
DEEP=""
for n in 9 10 11 12 13 14 15 16; do
    if echo "p:kptry/t $(plus $n)" >> $T/kprobe_events 2>/dev/null; then
        DEEP=$(plus $n) DOFF=$n
        echo "-:kptry/t" >> $T/kprobe_events
        break
    fi
done
echo "# $F at $ADDR; inside at $IN (+$OFF), $DEEP (+$DOFF)"
ktap_check "addresses_inside" test -n "$IN" -a -n "$DEEP"

# The user's pt_regs at the syscall's wrapper: dfd and the path.
U='%di'
LINES="p:G/ $ADDR c=\$comm:string dfd=+112($U):s32 name=+0(+104($U)):ustring
r:G/ $ADDR c=\$comm:string
p:G/k_in $IN dfd=+112($U):s32 c=\$comm"
printf "%s\n" "$LINES" | sed "s|^\(.\):G/|\1:kpaddr/|" > /tmp/kpaddr.lines
ktap_check "kprobe_events_takes_them" sh -c "cat /tmp/kpaddr.lines >> $T/kprobe_events"
printf "%s\n" "$LINES" | sed "s|^\(.\):G/|\1:bpaddr/|" > /tmp/bpaddr.lines
printf 'create bpaddr\nenable bpaddr\n' >> /tmp/bpaddr.lines
bp_ctl_file "batchprobe_takes_them" /tmp/bpaddr.lines
events() { ls $T/events/$1 | grep -v '^\(enable\|filter\)$' | tr '\n' ' '; }
echo "# kprobe_events: $(events kpaddr)"
echo "# batchprobe:    $(events bpaddr)"
ktap_check "event_names_are_the_kernels" test "$(events kpaddr)" = "$(events bpaddr)"
P=$(events kpaddr | tr ' ' '\n' | grep '^p_0x')
R=$(events kpaddr | tr ' ' '\n' | grep '^r_0x')
ktap_check "names_made_from_the_hash" test -n "$P" -a -n "$R"
for e in $P $R k_in; do
    if bp_same_format $T/events/kpaddr/$e/format $T/events/bpaddr/$e/format; then
        ktap_pass "format_$e"
    else
        ktap_fail "format_$e"
    fi
done
# The set's probes in stats: "KIND NAME SYMBOL+OFF hits=N ...".
probes() { awk '$1 == "set" { cur = $2; next } cur == "bpaddr"' $BP_DEBUGFS/stats; }
probes | sed 's/^/# /'
at_sym_off=no
if [ "$(bp_field bpaddr kprobes)" = 2 ] && [ "$(bp_field bpaddr kretprobes)" = 1 ] &&
    probes | grep -q "^ *kprobe $P $F+0 " && probes | grep -q "^ *kprobe k_in $F+$OFF " &&
    probes | grep -q "^ *kretprobe $R $F+0 "; then
    at_sym_off=yes
fi
ktap_check "int3_probes_shown_at_sym_off" test $at_sym_off = yes

# The same opens with each group's events on in turn (they share their
# names); only that group's probes armed (two kretprobes on one function
# see each other's trampoline as the caller).
for g in kpaddr bpaddr; do
    if [ $g = kpaddr ]; then bp_ctl 'disable bpaddr\nflush\n'; else bp_ctl 'enable bpaddr\n'; fi
    echo > $T/trace
    echo 'comm == "bpopen"' > $T/events/$g/filter
    echo 1 > $T/events/$g/enable
    echo 1 > $T/tracing_on
    bpopen $PATHNAME 3 > /dev/null
    echo 0 > $T/tracing_on
    echo 0 > $T/events/$g/enable
    echo 0 > $T/events/$g/filter
    for e in $P $R k_in; do
        grep -v '^#' $T/trace | sed -n "s/.* $e: //p" > /tmp/bpaddr.$g.$e
    done
done
for e in $P $R k_in; do
    bp_same_records "records_$e" "$(cat /tmp/bpaddr.kpaddr.$e)" "$(cat /tmp/bpaddr.bpaddr.$e)" 3
done
ktap_check "reads_the_path" grep -q "name=\"$PATHNAME\"" /tmp/bpaddr.bpaddr.$P
ktap_check "unregister" bp_ctl 'unregister bpaddr --sync\n'
echo > $T/kprobe_events

# refused_as_the_kernel TEST LINE: kprobe_events and batchprobe refuse
# LINE (group kpx, bpx); the words of error_log are in last_error.
refused_as_the_kernel() {
    : > $T/error_log
    if echo "$(echo "$2" | sed 's|^\(.\):G/|\1:kpx/|')" >> $T/kprobe_events 2>/dev/null; then
        echo > $T/kprobe_events
        ktap_fail "$1" "kprobe_events took it"
        return
    fi
    _why=$(sed -n 's/.*: error: //p' $T/error_log | head -1)
    if printf '%s\n' "$2" | sed 's|^\(.\):G/|\1:bpx/|' | bpwrite $BP_CTL 2>/dev/null; then
        ktap_fail "$1" "batchprobe took it"
    elif [ -z "$_why" ]; then
        ktap_fail "$1" "the kernel wrote no error_log entry: no words to compare"
    elif ! grep -qF "$_why" $BP_DEBUGFS/last_error; then
        sed 's/^/# /' $BP_DEBUGFS/last_error
        ktap_fail "$1" "last_error lacks the kernel's '$_why'"
    else
        ktap_pass "$1"
        echo "# kernel: $_why; batchprobe: $(head -1 $BP_DEBUGFS/last_error)"
    fi
}
refused_as_the_kernel "arg_at_an_address" "p:G/ $ADDR \$arg1"
refused_as_the_kernel "retval_at_an_address" "r:G/ $ADDR \$retval"
refused_as_the_kernel "offset_after_an_address" "p:G/ $ADDR+4"
refused_as_the_kernel "return_suffix_after_an_address" "p:G/ $ADDR%return"
# A return probe inside a function: both refuse (the kernel at
# registration, "Failed to register probe event"; batchprobe at create,
# saying it is no function entry).
kernel_took=no
if echo "r:kpx/ $DEEP" >> $T/kprobe_events 2>/dev/null; then kernel_took=yes; echo > $T/kprobe_events; fi
bp_expect_err "return_inside_refused" "$EINVAL" "r:bpx/ $DEEP\ncreate bpx\n"
ktap_check "return_inside_refused_by_both" sh -c "test $kernel_took = no && grep -q 'not a function entry' $BP_DEBUGFS/last_error"
# An address in no symbol: kprobe_events takes it, registering nothing
# (register_kprobe()'s ENOENT is read as a module not loaded yet);
# batchprobe refuses it, saying why.
if echo "p:kpx/ 0x10" >> $T/kprobe_events 2>/dev/null; then
    echo "# kprobe_events takes p 0x10 (a probe that waits for a module): $(grep kpx $T/kprobe_events)"
    echo > $T/kprobe_events
fi
bp_expect_err "no_symbol_there_refused" "$EINVAL" "p:bpx/ 0x10\n"
ktap_check "no_symbol_there_said" grep -q 'no symbol contains the address' $BP_DEBUGFS/last_error
bp_expect_err "direct_on_an_address_refused" "$EINVAL" "d:bpx/ $ADDR\n"
ktap_check "nothing_staged" sh -c "! grep -q 'probe(s) staged' $BP_DEBUGFS/sets"

# -:SET/EVENT by the made name.
bp_ctl "p:bpaddr/ $ADDR\np:bpaddr/k_in $IN\n-:bpaddr/$P\n"
ktap_check "unstaged_by_its_made_name" grep -q '^# 1 probe(s) staged' $BP_DEBUGFS/sets
bp_ctl '-:bpaddr\n'
ktap_check "rmmod" rmmod batchprobe
ktap_finish
