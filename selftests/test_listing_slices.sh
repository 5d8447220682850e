#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: sets and stats list a set of more than 4096 probes whole, each probe once: the listing walks a few thousand probes per RCU read-side critical section and goes on where it stopped
# requires: CONFIG_KPROBES
#
# A set may hold millions of probes; one RCU read-side critical section
# across all of them would be a preempt-disabled loop of seconds on a
# kernel without preemptible RCU (stall warnings). The listings take 4096
# probes per section (src/set/report.rs): 300 lines of vfs_* make every
# vfs_ function 300 probes, several sections' worth, which stats must show
# each once, every function exactly 300 times.
. ./bp_lib.sh
ktap_plan 7
probe_lines() { # SET: its probes' lines in stats, as "NAME" once each line
    awk -v s="$1" '$1 == "set" { cur = $2; next }
        cur == s && ($1 == "kprobe" || $1 == "kretprobe" || $1 == "fprobe" || $1 == "fretprobe" || $1 == "direct") { print $2 }' \
        "$BP_DEBUGFS/stats"
}

bp_load
ktap_check "three_hundred_glob_lines" bp_ctl "$(awk 'BEGIN { for (i = 0; i < 300; i++) printf "p:many/ vfs_*\\n" }')create many\n"
n=$(bp_set_probes many)
echo "# set many: $n probes"
ktap_check "more_than_two_sections" test "$n" -gt 8192
ktap_check "stats_lists_every_probe" test "$(probe_lines many | wc -l)" -eq "$n"
odd=$(probe_lines many | sort | uniq -c | awk '$1 != 300' | head -3)
ktap_check "each_function_300_times" test -z "$odd"
ktap_check "sets_line_whole" grep -q "^many registered .* hits=0$" $BP_DEBUGFS/sets
ktap_check "rmmod" sh -c ". ./bp_lib.sh; bp_unregister_all > /dev/null && rmmod batchprobe"
ktap_finish
