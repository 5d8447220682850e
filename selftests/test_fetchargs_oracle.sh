#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: batchprobe's fetch-argument compiler, and the loaded module, read each argument as this kernel's kprobe_events does
# requires: CONFIG_KPROBE_EVENTS
# speed: slow
#
# The kernel is the oracle. fetchargs.expected holds, for each case of
# fetchargs.corpus, what batchprobe's compiler (src/events/fetch.rs, run on
# the host for this kernel's release and config by tests/src/bin/
# fetch-oracle.rs when the collection is installed) makes of it: the event's
# fields and print fmt, or the refusal's words and caret column. Here each
# case is defined in kprobe_events at vfs_read (p: its entry, r: its
# return), and the kernel's format file or error_log must say the same
# (case eNNN_...). Then the same line goes to the loaded module, as
# "p:bpx/eNNN vfs_read ARGS" and "create bpx --events" (case eNNN_module):
# the kernel took it, and batchprobe's event has the kernel's format file
# (but for its name and ID); or the kernel refused it, and batchprobe
# refuses it with the kernel's words at the kernel's column. A "nosup"
# case is a known divergence (the kernel takes it, batchprobe refuses it,
# docs/design/events.md says why): the kernel must take it, the module must
# refuse it, and its module case is skipped with that reason. A "skip" case
# is one this kernel cannot be asked (it would trip a bug of its own: 6.12
# leaks on a refused $arg0).
. ./bp_lib.sh
T=/sys/kernel/tracing
exp=./fetchargs.expected
[ -s "$exp" ] || bp_bail_out "no $exp (scripts/install-selftests.sh writes it)"
ktap_plan "$(($(wc -l < "$exp") * 2 + 1))"
tab=$(printf '\t')
: > $T/error_log

# The fields of event $1 of group bpo past the common ones and the probe's
# own, tabs left out, joined with |.
fields() {
    grep "^${tab}field:" $T/events/bpo/$1/format | grep -v 'common_\|__probe_' \
        | tr -d '\t' | tr '\n' '|' | sed 's/|$//'
}
printfmt() { sed -n 's/^print fmt: //p' $T/events/bpo/$1/format; }
# The last error_log entry: "COLUMN TEXT".
last_error() {
    _text=$(grep 'error: ' $T/error_log | tail -1 | sed 's/.*error: //')
    _caret=$(tail -1 $T/error_log) _prefix="  Command: "
    _col=$(( ${#_caret} - ${#_prefix} - 1 ))
    echo "$_col $_text"
}

bp_load
# module SITE EV ARGS KIND A B KVERDICT: batchprobe's verdict on the line
# the kernel gave KVERDICT ("ok", or "COLUMN TEXT" of its refusal).
module() {
    _line="$1:bpx/$2 vfs_read $3"
    if printf '%s\ncreate bpx --events\n' "$_line" | bpwrite "$BP_CTL" > /dev/null 2>&1; then
        _got=ok
        cp $T/events/bpx/$2/format /tmp/bp-fa.ours 2>/dev/null
        bp_ctl 'unregister bpx --sync\n'
    else
        _got=refused
    fi
    case $4:$7:$_got in
    nosup:ok:refused)
        if grep -qF -- "$5" $BP_DEBUGFS/last_error; then
            ktap_skip "$2_module" "known divergence: batchprobe refuses: $5"
        else
            sed 's/^/# /' $BP_DEBUGFS/last_error
            ktap_fail "$2_module" "a known divergence refused in other words than: $5"
        fi ;;
    nosup:*) ktap_fail "$2_module" "a known divergence: the kernel $7, batchprobe $_got" ;;
    *:ok:ok)
        if bp_same_format /tmp/bp-fa.kernel /tmp/bp-fa.ours; then ktap_pass "$2_module"
        else ktap_fail "$2_module" "$_line: the formats differ (above)"; fi ;;
    *:ok:refused)
        ktap_fail "$2_module" "$_line: the kernel took it; batchprobe: $(head -1 $BP_DEBUGFS/last_error)" ;;
    *:*:ok) ktap_fail "$2_module" "$_line: the kernel refused it ($7); batchprobe took it" ;;
    *)
        # The kernel's words, at its column (a refusal without an
        # error_log entry, "- TEXT", is compared by the refusal alone).
        # The caret is compared where both can show it: not past the end
        # of the line as written (7.3 points into the argument it
        # rewrote), nor on a line last_error shows shortened ("...").
        _kcol=${7%% *} _kwords=${7#* }
        _caret=$(tail -1 $BP_DEBUGFS/last_error)
        _bcol=$(( ${#_caret} - 3 ))
        if [ "$_kcol" = - ]; then
            ktap_pass "$2_module"
        elif ! grep -qF -- "$_kwords" $BP_DEBUGFS/last_error; then
            sed 's/^/# /' $BP_DEBUGFS/last_error
            ktap_fail "$2_module" "the kernel's words: $_kwords"
        elif [ "$_kcol" -gt "${#_line}" ] || head -1 $BP_DEBUGFS/last_error | grep -qF '...: '; then
            ktap_pass "$2_module"
            ktap_print_msg "$2: caret not compared (the kernel's column $_kcol, the line ${#_line} bytes, shown whole: $(head -1 $BP_DEBUGFS/last_error | grep -cvF '...: ' ))"
        elif [ "$_bcol" -eq "$_kcol" ]; then
            ktap_pass "$2_module"
        else
            sed 's/^/# /' $BP_DEBUGFS/last_error
            ktap_fail "$2_module" "the kernel's column $_kcol ($_kwords), batchprobe's $_bcol"
        fi ;;
    esac
}
n=0
while IFS=$tab read -r site args kind a b; do
    n=$((n + 1))
    ev=$(printf 'e%03d' $n)
    name="${ev}_${site}_$(echo "$args" | tr -c 'A-Za-z0-9_\n' '_' | cut -c1-40)"
    : > $T/error_log
    # A case this kernel cannot be asked without tripping one of its bugs.
    if [ "$kind" = skip ]; then ktap_skip "$name" "$a"; ktap_skip "${ev}_module" "$a"; continue; fi
    if echo "$site:bpo/$ev vfs_read $args" >> $T/kprobe_events 2>/dev/null; then
        case $kind in
        ok)
            got_f=$(fields $ev) got_p=$(printfmt $ev)
            if [ "$got_f" = "$a" ] && [ "$got_p" = "$b" ]; then
                ktap_pass "$name"
            else
                ktap_print_msg "$site $args: the kernel's fields: $got_f"
                ktap_print_msg "  batchprobe's: $a"
                ktap_print_msg "  the kernel's print fmt: $got_p"
                ktap_print_msg "  batchprobe's: $b"
                ktap_fail "$name"
            fi ;;
        nosup) ktap_skip "$name" "known divergence: the kernel takes it, batchprobe's compiler refuses: $a" ;;
        *) ktap_fail "$name" "the kernel took it; batchprobe refuses: col $a: $b" ;;
        esac
        cp $T/events/bpo/$ev/format /tmp/bp-fa.kernel
        echo "-:bpo/$ev" >> $T/kprobe_events
        module "$site" "$ev" "$args" "$kind" "$a" "$b" ok < /dev/null
    else
        got=$(last_error)
        [ -n "${got#* }" ] || got="- (no error_log entry)"
        module "$site" "$ev" "$args" "$kind" "$a" "$b" "$got" < /dev/null
        case $kind in
        err)
            # "-": a refusal the kernel writes no error_log entry for.
            [ "$a" = - ] && ! grep -q 'error: ' $T/error_log && got="- $b"
            if [ "$got" = "$a $b" ]; then ktap_pass "$name"
            else ktap_fail "$name" "the kernel: $got; batchprobe: $a $b"; fi ;;
        *) ktap_fail "$name" "the kernel refused it ($got); batchprobe: $kind" ;;
        esac
    fi
done < "$exp"
rmmod batchprobe
ktap_finish
