#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: p:/r: lines on functions kprobes blacklist are refused as kprobe_events refuses them, in the same boot, though ftrace can trace them; a glob takes them, as BPF's kprobe_multi does
# requires: CONFIG_KPROBE_EVENTS, CONFIG_DYNAMIC_FTRACE (available_filter_functions), /sys/kernel/debug/kprobes/blacklist
#
# kprobe_events refuses a probe on a function kprobes blacklist
# (NOKPROBE_SYMBOL: register_kprobe()'s check_kprobe_address_safe(),
# EINVAL). ftrace can trace some of them (perf_event_nmi_handler, for one):
# batchprobe serves a p: at +0 or an r: there with an fprobe, which never
# asks kprobes, so it must judge the line itself. For each candidate
# (blacklisted functions ftrace can trace, and traceable ones that are
# not blacklisted), the kernel's verdict on "p:" and "r:" in kprobe_events
# is the oracle for batchprobe's p:, p!:, r: and r!:. The refusal's words
# are checked, and that it holds where the writer may not see addresses
# (kptr_restrict=2: the blacklist lists zeroes, names are compared). A
# glob's member is not refused (BPF's kprobe_multi, on fprobes as well,
# attaches to blacklisted functions).
. ./bp_lib.sh
T=/sys/kernel/tracing
BL=/sys/kernel/debug/kprobes/blacklist

tmp=/tmp/bp-blacklist
mkdir -p $tmp
awk 'NF == 1' $T/available_filter_functions > $tmp/traceable
awk 'NF == 3 && ($2 == "t" || $2 == "T") { n[$3]++ } END { for (s in n) if (n[s] > 1) print s }' /proc/kallsyms > $tmp/twice
awk 'NF == 2 { print $2 }' $BL | sort -u > $tmp/black
# Blacklisted, traceable, one text symbol of that name, dotless.
black=$(awk -v t=$tmp/traceable -v d=$tmp/twice '
    BEGIN { while ((getline l < t) > 0) ok[l] = 1; while ((getline l < d) > 0) twice[l] = 1 }
    ($1 in ok) && !($1 in twice) && $1 !~ /\./ { print $1 }' $tmp/black | head -4)
traced=""
for s in vfs_read ksys_read; do
    grep -qx "$s" $tmp/traceable && ! grep -qx "$s" $tmp/twice && ! grep -qx "$s" $tmp/black &&
        traced="$traced $s"
done
EINVAL=22
ncand=$(echo $black $traced | wc -w)
ktap_plan $((ncand * 4 + 8))
echo "# blacklisted and traceable:" ${black:-none} "| traceable:$traced"
WORDS='probing refused: blacklisted (kprobes/blacklist; kprobe_events refuses it too) (EINVAL)'

bp_load
n=0
for s in $black $traced; do
    n=$((n + 1))
    bp_oracle_cases $n "$s"
done
s=$(echo $black | awk '{ print $1 }')
if [ -n "$s" ]; then
    bp_expect_err "p_refused_einval" $EINVAL "p:bl/c $s\ncreate bl\n"
    ktap_check "p_refusal_in_words" \
        test "$(cat $BP_DEBUGFS/last_error)" = "line 1: p:bl/c $s: $WORDS, at create on line 2"
    old=$(cat /proc/sys/kernel/kptr_restrict)
    echo 2 > /proc/sys/kernel/kptr_restrict
    zeroes=$(awk -v s="$s" '$2 == s { print $1 }' $BL)
    bp_expect_err "refused_with_addresses_hidden" $EINVAL "r:bl/c $s\ncreate bl\n"
    echo "$old" > /proc/sys/kernel/kptr_restrict
    echo "# kptr_restrict=2: the blacklist lists $zeroes for $s"
    ktap_check "blacklist_hid_addresses" test "$zeroes" = "0x0000000000000000-0x0000000000000000"
    # A glob naming it alone (its last letter a '?'): the member is taken,
    # on an fprobe.
    g=$(echo "$s" | sed 's/.$/?/')
    ktap_check "glob_takes_blacklisted_member" bp_ctl "p:blg/ $g\ncreate blg\n"
    ktap_check "member_on_an_fprobe" test "$(bp_probe_kind blg "$s")" = fprobe
    bp_ctl 'unregister blg --sync\n'
else
    for c in p_refused_einval p_refusal_in_words refused_with_addresses_hidden blacklist_hid_addresses \
        glob_takes_blacklisted_member member_on_an_fprobe; do
        ktap_skip "$c" "no function both blacklisted and ftrace-able on this kernel"
    done
fi
ktap_check "rmmod" rmmod batchprobe
ktap_finish
