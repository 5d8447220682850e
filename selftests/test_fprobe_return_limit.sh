#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: where fprobe runs on fgraph, the 25th set with r: on one function gets a kretprobe, not a 25th return fprobe, and every set counts every return
# requires: CONFIG_FPROBE, CONFIG_DYNAMIC_FTRACE, CONFIG_KPROBES
#
# On fgraph (7.3) every return fprobe on a function takes a word of each
# call's 32-word shadow-stack reservation, and past it every return fprobe
# on that function misses every return. batchprobe lets at most 24 of its
# sets hold return fprobes at once (8 words left to the kernel's other
# users); the next set's r: falls back to a kretprobe, which stats names.
# Through 6.13 each fprobe has its own instance pool: all 25 stay
# fretprobes. Either way each of the 25 sets counts exactly 50 returns, and
# once one of the first 24 goes, a new set gets a return fprobe again.
. ./bp_lib.sh
ktap_plan 10
if fprobe_on_fgraph; then last=kretprobe; else last=fretprobe; fi
bp_load
cmds=""
i=1
while [ $i -le 25 ]; do
    cmds="${cmds}r:lim$i/r ${BP_GETPPID}\ncreate lim$i\nenable lim$i\n"
    i=$((i + 1))
done
ktap_check "create_25_sets_with_r_on_getppid" bp_ctl "$cmds"
kinds() {
    i=$1
    while [ $i -le $2 ]; do bp_probe_kind lim$i r; i=$((i + 1)); done | sort | uniq -c | awk '{ printf "%s%s=%s", (NR > 1 ? " " : ""), $2, $1 }'
}
ktap_check "first_24_are_fretprobes" test "$(kinds 1 24)" = "fretprobe=24"
ktap_check "the_25th_is_a_$last" test "$(bp_probe_kind lim25 r)" = "$last"
all_hits() { i=1; while [ $i -le 25 ]; do bp_probe_hits lim$i r; i=$((i + 1)); done; }
# Read in this shell (a new shell calls getppid itself).
before=$(all_hits)
bphit 50 > /dev/null
after=$(all_hits)
each_plus_50() {
    set -- $before
    for a in $after; do
        [ "$a" -eq $(($1 + 50)) ] || { echo "before: $before; after: $after"; return 1; }
        shift
    done
}
ktap_check "all_25_count_50_returns" each_plus_50
ktap_check "unregister_one_of_the_24" bp_ctl 'unregister lim3\nflush\n'
ktap_check "a_new_set_gets_a_fretprobe_again" bp_ctl 'r:lim26/r '"${BP_GETPPID}"'\ncreate lim26\n'
ktap_check "new_set_is_fretprobe" test "$(bp_probe_kind lim26 r)" = fretprobe
un=""
for i in 1 2 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26; do un="${un}unregister lim$i\n"; done
ktap_check "unregister_all" bp_ctl "${un}flush\n"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
