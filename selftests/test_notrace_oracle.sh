#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: p:/r: lines on notrace functions are refused as kprobe_events refuses them, in the same boot
# requires: CONFIG_KPROBE_EVENTS, CONFIG_DYNAMIC_FTRACE (available_filter_functions)
# speed: slow on stock-7.3
#
# kprobe_events refuses a probe in a function ftrace has no call site in
# (within_notrace_func(): "Could not probe notrace function", EINVAL),
# judging a suffixed symbol (foo.cold) by foo. batchprobe's p:, p!:, r: and
# r!: lines must get the same verdict on the same functions: for each
# candidate (notrace functions, traceable ones, and a .cold part whose
# function is traceable where the compiler made any), the kernel's verdict
# on "p:" and "r:" in kprobe_events is the oracle; batchprobe accepts
# exactly what it accepts, and refuses a notrace function with EINVAL and
# the kernel's words in last_error. A glob skips its notrace members (as
# BPF's kprobe_multi, which attaches through ftrace, never takes them).
. ./bp_lib.sh
T=/sys/kernel/tracing
tmp=/tmp/bp-notrace
mkdir -p $tmp
awk 'NF == 1' $T/available_filter_functions > $tmp/traceable
awk 'NF == 3 && ($2 == "t" || $2 == "T") { n[$3]++ } END { for (s in n) if (n[s] > 1) print s }' /proc/kallsyms > $tmp/twice
awk 'NF == 2 { print $2 }' /sys/kernel/debug/kprobes/blacklist > $tmp/black
# Unique, dotless, not blacklisted text functions ftrace cannot trace, whose
# names match a pattern: the trace events' output functions (notrace by
# definition, in regular text, called only when a trace is read).
untraced() {
    awk -v t=$tmp/traceable -v d=$tmp/twice -v b=$tmp/black '
        BEGIN { while ((getline l < t) > 0) ok[l] = 1; while ((getline l < d) > 0) twice[l] = 1
                while ((getline l < b) > 0) black[l] = 1 }
        NF == 3 && ($2 == "t" || $2 == "T") && !($3 in ok) && !($3 in twice) && !($3 in black) &&
        $3 !~ /\./ && $3 ~ /'"$1"'/ { print $3 }' /proc/kallsyms
}
notrace=$(untraced '^trace_raw_output_' | head -4)
traced=""
for s in vfs_read ksys_read; do
    grep -qx "$s" $tmp/traceable && ! grep -qx "$s" $tmp/twice && traced="$traced $s"
done
# X.cold whose X ftrace can trace (GCC makes them; clang does not).
cold=$(awk -v t=$tmp/traceable -v d=$tmp/twice '
    BEGIN { while ((getline l < t) > 0) ok[l] = 1; while ((getline l < d) > 0) twice[l] = 1 }
    NF == 3 && ($2 == "t" || $2 == "T") && $3 ~ /^[a-z_0-9]+\.cold$/ { b = $3; sub(/\.cold$/, "", b)
        if ((b in ok) && !(b in twice) && !($3 in twice)) { print $3; exit } }' /proc/kallsyms)
ncand=$(echo $notrace $traced $cold | wc -w)
ktap_plan $((ncand * 4 + 8))
echo "# notrace:$(echo " $notrace" | tr -s ' ') | traceable:$traced | cold: ${cold:-none (no .cold symbols: a clang build)}"

bp_load
n=0
for s in $notrace $traced $cold; do
    n=$((n + 1))
    bp_oracle_cases $n "$s"
done
s=$(echo $notrace | awk '{ print $1 }')
# Mid-instruction in a notrace function: kprobe_events judges the function
# before kprobes judge the offset (EINVAL, not EILSEQ); so does batchprobe.
for kind in p p!; do
    name="mid_instruction_${kind%!}$( [ "$kind" != "${kind%!}" ] && echo _int3)_agrees_with_kprobe_events"
    if [ -n "$s" ]; then
        k=$(bp_kernel_verdict p "$s+1") o=$(bp_verdict "$kind" "$s+1")
        echo "# $kind:$s+1: kprobe_events ${k:-?}, batchprobe ${o:-?}"
        ktap_check "$name" test "${k:-?}" = "${o:-?}"
    else
        ktap_skip "$name" "no notrace function found"
    fi
done
if [ -n "$s" ]; then
    bp_verdict p "$s" > /dev/null
    ktap_check "last_error_in_the_kernels_words" sh -c "grep -q 'Could not probe notrace function' $BP_DEBUGFS/last_error || { sed 's/^/# /' $BP_DEBUGFS/last_error; false; }"
    dmesg | grep -q "Could not probe notrace function $s" && kw=yes || kw=no
    ktap_check "kernel_said_it_too" test $kw = yes
else
    ktap_skip "last_error_in_the_kernels_words" "no notrace function found"
    ktap_skip "kernel_said_it_too" "no notrace function found"
fi
# A glob over the output functions and one traceable line: the set is made,
# every notrace member skipped (EINVAL), none of them a kprobe.
kp0=$(kprobes_registered)
ktap_check "glob_made" bp_ctl "p:g/ trace_raw_output_* max=20\np:g/t vfs_read\ncreate g\n"
echo "# glob: $(bp_field g fprobes) fprobes, $(bp_field g kprobes) kprobes, $(bp_field g skipped) skipped"
ktap_check "glob_notrace_members_skipped" test "$(bp_field g skipped)" -gt 0 -a "$(bp_field g kprobes)" -eq 0
ktap_check "rmmod" sh -c ". ./bp_lib.sh; bp_ctl 'unregister g\nflush\n' && test \$(kprobes_registered) -eq $kp0 && rmmod batchprobe"
rm -rf $tmp
ktap_finish
