#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: batchprobe's fetch-argument compiler reads each argument as this kernel's kprobe_events does
# requires: CONFIG_KPROBE_EVENTS
#
# The kernel is the oracle. fetchargs.expected holds, for each case of
# fetchargs.corpus, what batchprobe's compiler (src/events/fetch.rs, run on
# the host for this kernel's release and config by tests/src/bin/
# fetch-oracle.rs when the collection is installed) makes of it: the event's
# fields and print fmt, or the refusal's words and caret column. Here each
# case is defined in kprobe_events at vfs_read (p: its entry, r: its
# return), and the kernel's format file or error_log must say the same. A
# "nosup" case is one the kernel takes and batchprobe refuses, with its
# reason: the kernel must take it. A "skip" case is one this kernel cannot
# be asked (it would trip a bug of its own: 6.12 leaks on a refused $arg0).
# Nothing of batchprobe is loaded.
. ./bp_lib.sh
T=/sys/kernel/tracing
exp=./fetchargs.expected
[ -s "$exp" ] || { ktap_print_header; echo "Bail out! no $exp (scripts/install-selftests.sh writes it)"; exit "$KSFT_FAIL"; }
ktap_plan "$(wc -l < "$exp")"
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

n=0
while IFS=$tab read -r site args kind a b; do
    n=$((n + 1))
    ev=$(printf 'e%03d' $n)
    name="${ev}_${site}_$(echo "$args" | tr -c 'A-Za-z0-9_\n' '_' | cut -c1-40)"
    : > $T/error_log
    # A case this kernel cannot be asked without tripping one of its bugs.
    if [ "$kind" = skip ]; then ktap_skip "$name" "$a"; continue; fi
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
        nosup) ktap_pass "$name"; ktap_print_msg "$site $args: kernel takes it; batchprobe refuses: $a" ;;
        *) ktap_fail "$name" "the kernel took it; batchprobe refuses: col $a: $b" ;;
        esac
        echo "-:bpo/$ev" >> $T/kprobe_events
    else
        got=$(last_error)
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
ktap_finish
