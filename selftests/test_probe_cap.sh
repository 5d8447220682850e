#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a set holds at most max_set_probes probes: explicit lines past the cap fail the create with ENOSPC, naming the line, the set and the cap, and nothing is created
# requires: CONFIG_KPROBES
#
# Lines are capped (65,536 staged), and a glob line offers every symbol it
# matches, so probes are capped too: at most 4,194,304 per set (the module
# parameter max_set_probes, lowered here so that a few lines reach it; each
# create reads it once). An explicit line past the cap fails the whole
# write (glob members past it are skipped: test_probe_cap_glob.sh). The
# lines are forced onto kprobes (p!:) so that "nothing created" shows in the
# kernel's own kprobe count.
. ./bp_lib.sh
ktap_plan 12
ENOSPC=28
PARAM=/sys/module/batchprobe/parameters/max_set_probes

bp_load insmod_with_a_cap_of_8 max_set_probes=8
ktap_check "the_parameter_reads_back" test "$(cat $PARAM 2>&1)" = 8
kp0=$(kprobes_registered)
lines() { # SET N: N explicit lines, named p1..pN
    awk -v s="$1" -v n="$2" 'BEGIN { for (i = 1; i <= n; i++) printf "p!:%s/p%d vfs_read\\n", s, i }'
}
bp_expect_err "nine_explicit_lines_enospc" "$ENOSPC" "$(lines big 9)create big\n"
echo "# $(cat $BP_DEBUGFS/last_error)"
ktap_check "last_error_names_line_set_and_cap" grep -qxF \
    "line 9: p!:big/p9 vfs_read: set big: more than 8 probes per set (max_set_probes) (ENOSPC), at create on line 10" \
    $BP_DEBUGFS/last_error
ktap_check "no_set_big" sh -c "! grep -q '^big ' $BP_DEBUGFS/sets"
ktap_check "nothing_staged" sh -c "! grep -q 'staged' $BP_DEBUGFS/sets"
ktap_check "no_kprobe_left" test "$(kprobes_registered)" -eq "$kp0"
ktap_check "eight_fit" bp_ctl "$(lines fit 8)create fit\n"
ktap_check "set_fit_holds_8" test "$(bp_field fit kprobes)" = 8
ktap_check "lowered_at_run_time" sh -c "echo 2 > $PARAM"
bp_expect_err "third_line_past_the_new_cap" "$ENOSPC" "$(lines low 3)create low\n"
ktap_check "rmmod" sh -c ". ./bp_lib.sh; bp_unregister_all > /dev/null && rmmod batchprobe"
ktap_finish
