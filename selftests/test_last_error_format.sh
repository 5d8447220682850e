#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: last_error names the offending probe's line and text first, says what was wrong in words, and gives the errno once, by name
# requires: CONFIG_KPROBES, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
#
# Like tracefs' error_log: a probe the kernel refuses while `create` runs
# is blamed on the line that named it, with the line as written, then the
# create's line; the reason is in words (unknown symbol, mid-instruction,
# not ftrace-able, blacklisted), and the errno comes once, by name, never
# as a number. A line staged by an earlier write says so. A parse error
# shows the line again with a caret under the word at fault. The write's
# errno is unchanged.
. ./bp_lib.sh
ktap_plan 16
ENOENT=2 EINVAL=22 EILSEQ=84
T=/sys/kernel/tracing
LE=$BP_DEBUGFS/last_error

# is TEXT: last_error's first line is exactly TEXT, and it names no errno
# by number ("errno", or a negative number).
is() {
    first=$(head -1 $LE)
    if [ "$first" != "$1" ]; then
        echo "got:    $first"
        echo "wanted: $1"
        return 1
    fi
    ! grep -Eq 'errno|-[0-9]' $LE || { echo "a number: $(cat $LE)"; return 1; }
}

bp_load

# The example, as a new user would write it.
bp_expect_err "unknown_symbol_enoent" $ENOENT 'p:oops/a vfs_read\np:oops/b no_such_function\ncreate oops\n'
ktap_check "unknown_symbol_blames_its_line" \
    is "line 2: p:oops/b no_such_function: unknown symbol (ENOENT), at create on line 3"

# Staged by one write, created by the next.
bp_ctl '# staged now, created below\n  p!:ew/x   no_such_function  \n'
bp_expect_err "earlier_write_enoent" $ENOENT 'create ew --noopt\n'
ktap_check "earlier_write_says_so" \
    is "line 2 of an earlier write: p!:ew/x   no_such_function: unknown symbol (ENOENT), at create on line 1"
bp_ctl '-:ew\n'

# An offset inside an instruction (under IBT, inside the endbr64).
bp_expect_err "mid_instruction_eilseq" $EILSEQ 'p:mi/x version_proc_show+1\ncreate mi\n'
ktap_check "mid_instruction_in_words" \
    is "line 1: p:mi/x version_proc_show+1: mid-instruction: not an instruction boundary kprobes can probe (EILSEQ), at create on line 2"

# A function kprobes blacklist, forced onto a kprobe: one ftrace can trace
# (a notrace one is refused as notrace first, as kprobe_events refuses it:
# test_notrace_oracle.sh).
black=$(awk 'NR == FNR { if (NF == 1) ok[$1] = 1; next } NF == 2 && ($2 in ok) && $2 !~ /\./ { print $2; exit }' \
    $T/available_filter_functions /sys/kernel/debug/kprobes/blacklist)
echo "# blacklisted, ftrace-able: ${black:-none}"
if [ -n "$black" ]; then
    bp_expect_err "blacklisted_einval" $EINVAL "p!:bl/x $black\ncreate bl\n"
    ktap_check "blacklisted_in_words" \
        is "line 1: p!:bl/x $black: probing refused: blacklisted (kprobes/blacklist), not text, or a reserved site: a jump label, static call, BUG, CFI preamble or alternative (EINVAL), at create on line 2"
else
    ktap_skip "blacklisted_einval" "no function both blacklisted and ftrace-able"
    ktap_skip "blacklisted_in_words" "no function both blacklisted and ftrace-able"
fi

# A text symbol ftrace cannot trace, as a direct call (6.12's ftrace says
# EINVAL; the words do not depend on it).
untraceable=$(grep ' [tT] ' /proc/kallsyms | awk '{print $3}' | grep -v '\.' | head -400 |
    while read -r s; do grep -qx "$s" $T/available_filter_functions || { echo "$s"; break; }; done)
echo "# not ftrace-able: $untraceable"
out=$(bp_ctl "d:nf/y ${BP_GETPID}\nd:nf/x $untraceable\ncreate nf\n" 2>&1)
errno=$(echo "$out" | sed -n 's/.*(errno \([0-9]*\)).*/\1/p')
case $errno in 2) name=ENOENT ;; 22) name=EINVAL ;; *) name="errno $errno" ;; esac
echo "# write: $out"
ktap_check "not_ftrace_able_in_words" \
    is "line 2: d:nf/x $untraceable: not ftrace-able: no fentry call site ($name), at create on line 3"

# A parse error: the line, then a caret under the word at fault.
bp_expect_err "parse_error_einval" $EINVAL 'flush\np:pe/ vfs_read+zz\n'
ktap_check "parse_error_first_line" is "line 2: p:pe/ vfs_read+zz: bad offset (EINVAL)"
ktap_check "parse_error_caret" test "$(sed -n '2,3p' $LE)" = "  p:pe/ vfs_read+zz
                 ^"

# A command's own failure: its line and its text.
bp_expect_err "unknown_set_enoent" $ENOENT 'flush\n\nenable nosuchset\n'
ktap_check "command_names_its_line" is "line 3: enable nosuchset: no set nosuchset (ENOENT)"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
