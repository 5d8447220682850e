#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: where fprobe runs on fgraph, batchprobe holds fprobe's fgraph ops from its first return fprobe until rmmod, and return fprobes that come and go under a busy function draw no warning
# requires: CONFIG_FPROBE, CONFIG_DYNAMIC_FTRACE (enabled_functions)
# speed: slow
#
# fprobe drops its one fgraph_ops with its last return fprobe, and the next
# registration gives that ops another index while entry handlers on other
# CPUs may still be on the old one; their returns then find no data
# (WARNING at kernel/trace/fprobe.c fprobe_return). batchprobe keeps a
# return fprobe on bp_fgraph_anchor, a function nothing calls, from the
# first one it arms until rmmod (src/fprobe.rs, FgraphAnchor). Here: no
# anchor before a return fprobe, one after it and after its set is gone,
# none after rmmod; and 200 sets (50 on the debug kernels) with return
# probes on getppid and on the control write's own path (vfs_write,
# ksys_write), armed and retired one after another while another task
# calls getppid without pause, add no WARNING to the kernel log.
# (test_fuzz.sh met that warning in 3 of 4 7.3 boots without the anchor;
# this churn alone did not in one.) Through 6.13 (a rethook per fprobe)
# there is no anchor, and the churn must be as quiet.
. ./bp_lib.sh
ktap_plan 8
T=/sys/kernel/tracing
anchors() { grep -c '^bp_fgraph_anchor ' $T/enabled_functions; }
if fprobe_on_fgraph; then held=1; else held=0; fi
w0=$(bp_kernel_warnings)
bp_load
ktap_check "no_anchor_before_a_return_fprobe" \
    sh -c ". ./bp_lib.sh; bp_ctl 'p:e/p ${BP_GETPPID}\ncreate e\nenable e\nunregister e --sync\n' && test \$(grep -c '^bp_fgraph_anchor ' $T/enabled_functions) -eq 0"
ktap_check "first_return_fprobe" bp_ctl 'r:a/r '"${BP_GETPPID}"'\ncreate a\nenable a\n'
ktap_check "anchor_held_where_fgraph" test "$(anchors)" -eq "$held"
ktap_check "anchor_outlives_the_set" sh -c ". ./bp_lib.sh; bp_ctl 'unregister a --sync\n' && test \$(grep -c '^bp_fgraph_anchor ' $T/enabled_functions) -eq $held"
# A busy caller on the other CPU while sets come and go: 200 of them (50 on
# the debug kernels: bp_sized).
CHURN=$(bp_sized 200)
bphit 100000000 > /dev/null &
busy=$!
churn() {
    i=0
    while [ $i -lt "$CHURN" ]; do
        bp_ctl "r:c$i/w vfs_write\nr:c$i/k ksys_write\nr:c$i/r ${BP_GETPPID}\ncreate c$i\nenable c$i\nunregister c$i\n" || return 1
        i=$((i + 1))
    done
    bp_ctl 'flush\n'
}
ktap_check "return_sets_on_the_write_path_armed_and_retired_under_a_busy_caller" churn
kill $busy 2>/dev/null; wait $busy 2>/dev/null
ktap_check "no_new_warning" bp_no_new_warnings "$w0"
ktap_check "rmmod_drops_the_anchor" sh -c "rmmod batchprobe && test \$(grep -c '^bp_fgraph_anchor ' $T/enabled_functions) -eq 0"
ktap_finish
