#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: p: at +0 is an fprobe where ftrace can trace the function, refused where it cannot
# requires: CONFIG_FPROBE, CONFIG_KPROBES, CONFIG_DYNAMIC_FTRACE (available_filter_functions)
#
# Functions ftrace can trace (core-kernel ones in available_filter_functions)
# get an fprobe. A function it cannot trace is notrace, which kprobe_events
# refuses ("Could not probe notrace function"): batchprobe refuses it too
# (test_notrace_oracle.sh compares the two), so there is no kprobe
# fallback at +0 any more. A glob over the first core text symbols (widened
# until it has both) routes each member on its own: members ftrace can
# trace are fprobes, the others skipped (EINVAL), none a kprobe, and the
# kernel lists none. An explicit line on one of the untraceable ones is
# refused (EINVAL), on a traceable one an fprobe. A function ftrace can
# trace but kprobes blacklist is refused on a line of its own, p: as p!:
# (EINVAL, as kprobe_events refuses it: test_blacklist_oracle.sh), and is
# an fprobe as a glob's member (as BPF's kprobe_multi takes it).
. ./bp_lib.sh
ktap_plan 15
T=/sys/kernel/tracing
tmp=/tmp/bp-fallback
mkdir -p $tmp

bp_load
kp0=$(kprobes_registered)
# Core functions ftrace can trace (a module's lines carry " [MOD]"); text
# names more than one function has (left unjudged: a name does not tell
# which of them ftrace can trace); the kprobe blacklist's symbols.
awk 'NF == 1' $T/available_filter_functions > $tmp/traceable
awk 'NF == 3 && ($2 == "t" || $2 == "T") { n[$3]++ } END { for (s in n) if (n[s] > 1) print s }' /proc/kallsyms > $tmp/twice
awk 'NF == 2 { print $2 }' /sys/kernel/debug/kprobes/blacklist > $tmp/black
# members [KIND]: "KIND NAME SYM" of each member of set fb (of KIND only).
members() {
    awk -v k="${1:-}" '$1 == "set" { cur = $2; next } cur == "fb" && $4 ~ /^hits=/ && (k == "" || $1 == k) { print $1, $2, $3 }' \
        "$BP_DEBUGFS/stats"
}
# pick KIND: the first member KIND serves with a unique, dotless name.
pick() {
    members "$1" | awk -v t=$tmp/twice 'BEGIN { while ((getline l < t) > 0) twice[l] = 1 }
        { sym = $3; sub(/\+0$/, "", sym) } !(sym in twice) && sym !~ /\./ { print sym; exit }'
}
for max in 200 1000 5000; do
    bp_ctl "p:fb/ * max=$max skip=*lock*\ncreate fb\n" || break
    fsym=$(pick fprobe)
    [ -n "$fsym" ] && [ "$(bp_field fb skipped)" -gt 0 ] && break
    [ "$max" = 5000 ] || bp_ctl 'unregister fb --sync\n'
done
nf=$(bp_field fb fprobes) nk=$(bp_field fb kprobes) nskip=$(bp_field fb skipped)
# An untraceable function the walk met (unique, dotless, not blacklisted).
ksym=$(awk -v t=$tmp/traceable -v d=$tmp/twice -v b=$tmp/black '
    BEGIN { while ((getline l < t) > 0) ok[l] = 1; while ((getline l < d) > 0) twice[l] = 1
            while ((getline l < b) > 0) black[l] = 1 }
    NF == 3 && ($2 == "t" || $2 == "T") && !($3 in ok) && !($3 in twice) && !($3 in black) &&
    $3 !~ /\./ && $3 !~ /lock/ { print $3; exit }' /proc/kallsyms)
echo "# p:fb/ * max=$max: $nf fprobes, $nk kprobes, $nskip skipped; e.g. fprobe on $fsym; untraceable: $ksym"
ktap_check "glob_created" test "$(bp_state fb)" = registered
ktap_check "glob_has_fprobes_and_skipped_notrace_members" test -n "$fsym" -a "$nskip" -gt 0
# Wrongly served members: anything but an fprobe at +0 on a function ftrace
# can trace.
misrouted() {
    members | awk -v t=$tmp/traceable -v d=$tmp/twice '
        BEGIN { while ((getline l < t) > 0) ok[l] = 1; while ((getline l < d) > 0) twice[l] = 1 }
        { sym = $3 }
        sub(/\+0$/, "", sym) != 1 { print; next }
        sym in twice { next }
        $1 == "fprobe" && (sym in ok) { next }
        { print }'
}
bad=$(misrouted)
[ -n "$bad" ] && echo "$bad" | head -20 | sed 's/^/# misrouted: /'
ktap_check "each_member_routed_by_whether_ftrace_can_trace_it" test -z "$bad"
blacklisted() {
    members | awk -v b=$tmp/black -v d=$tmp/twice '
        BEGIN { while ((getline l < b) > 0) black[l] = 1; while ((getline l < d) > 0) twice[l] = 1 }
        { sym = $3; sub(/\+0$/, "", sym) } (sym in black) && !(sym in twice) { print }'
}
# The kprobe blacklist guards the int3 path: a blacklisted member is an
# fprobe (ftrace can trace it) or not in the set at all, never a kprobe.
ktap_check "no_blacklisted_kprobe" test -z "$(blacklisted | awk '$1 == "kprobe"')"
ktap_check "stats_lines_agree_with_sets_line" \
    test "$(members fprobe | wc -l)/$(members kprobe | wc -l)/$(members | wc -l)" = "$nf/$nk/$((nf + nk))"
ktap_check "kernel_lists_the_kprobes_only" test "$(kprobes_registered)" -eq $((kp0 + nk))
bp_expect_err "explicit_untraceable_refused_einval" 22 "p:one/k $ksym\np:one/f $fsym\ncreate one\n"
ktap_check "explicit_traceable_fprobe" sh -c ". ./bp_lib.sh; bp_ctl 'p:one/f $fsym\ncreate one\n' && test \"\$(bp_probe_kind one f)\" = fprobe"
ktap_check "kernel_lists_no_kprobe_of_ours" test "$(kprobes_registered)" -eq "$kp0"
bsym=$(awk -v t=$tmp/traceable -v d=$tmp/twice '
    BEGIN { while ((getline l < t) > 0) ok[l] = 1; while ((getline l < d) > 0) twice[l] = 1 }
    ($1 in ok) && !($1 in twice) && $1 !~ /\./ { print; exit }' $tmp/black)
if [ -n "$bsym" ]; then
    echo "# blacklisted, ftrace-able: $bsym"
    bp_expect_err "blacklisted_forced_kprobe_einval" 22 "p!:bl/x $bsym\ncreate bl\n"
    bp_expect_err "blacklisted_traceable_refused_einval" 22 "p:bl/x $bsym\ncreate bl\n"
else
    ktap_skip "blacklisted_forced_kprobe_einval" "no function both blacklisted and ftrace-able"
    ktap_skip "blacklisted_traceable_refused_einval" "no function both blacklisted and ftrace-able"
fi
ktap_check "unregister_sync" bp_ctl 'unregister fb\nunregister one\nflush\n'
ktap_check "kernel_sees_them_gone" test "$(kprobes_registered)" -eq "$kp0"
rm -rf $tmp
ktap_check "rmmod" rmmod batchprobe
ktap_finish
