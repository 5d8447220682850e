#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: glob members past a set's probe cap are skipped and counted: the set holds exactly the cap, sets counts them in skipped=, stats says how many the cap left out, explicit lines keep their room, and a set the cap leaves empty fails with ENOSPC
# requires: CONFIG_KPROBES
#
# Each glob line offers every symbol it matches: four lines of vfs_* offer
# every vfs_ function four times. With max_set_probes lowered to 40 the
# set takes 40 of them and skips the rest, counted with the members the
# kernel refused (skipped=); stats adds how many the cap left out. An
# explicit line holds its room from the start, though the walk of the text
# symbols meets glob members first.
. ./bp_lib.sh
ktap_plan 12
ENOSPC=28
PARAM=/sys/module/batchprobe/parameters/max_set_probes
past_cap() { # SET: how many glob members the cap left out, from stats
    awk -v s="$1" '$1 == "set" { cur = $2; next } cur == s && /^  skipped [0-9]+ past the cap of 40 probes per set \(max_set_probes\)$/ { print $2 }' \
        "$BP_DEBUGFS/stats"
}

bp_load insmod_with_a_cap_of_40 max_set_probes=40
ktap_check "four_glob_lines" bp_ctl 'p:g/ vfs_*\np:g/ vfs_*\np:g/ vfs_*\np:g/ vfs_*\ncreate g\n'
echo "# $(grep '^g ' $BP_DEBUGFS/sets); past the cap: $(past_cap g)"
ktap_check "the_set_holds_exactly_the_cap" test "$(bp_set_probes g)" = 40
ktap_check "stats_counts_the_members_past_the_cap" test "$(past_cap g)" -gt 0
ktap_check "skipped_counts_them_too" test "$(bp_field g skipped)" -ge "$(past_cap g)"
ktap_check "glob_and_explicit_line" bp_ctl 'p:h/ vfs_*\np:h/ vfs_*\np:h/ vfs_*\np:h/ vfs_*\np:h/mine vfs_write\ncreate h\n'
ktap_check "the_explicit_line_kept_its_room" test -n "$(bp_probe_kind h mine)"
ktap_check "still_exactly_the_cap" test "$(bp_set_probes h)" = 40
ktap_check "cap_0" sh -c "echo 0 > $PARAM"
bp_expect_err "a_set_the_cap_leaves_empty_enospc" "$ENOSPC" 'p:z/ vfs_*\ncreate z\n'
echo "# $(cat $BP_DEBUGFS/last_error)"
ktap_check "last_error_says_the_cap_left_it_empty" grep -q \
    "^line 2: create z: no probe of set z could be registered: [0-9]* glob members past the cap of 0 probes per set (max_set_probes) (ENOSPC)$" \
    $BP_DEBUGFS/last_error
ktap_check "rmmod" sh -c ". ./bp_lib.sh; bp_unregister_all > /dev/null && rmmod batchprobe"
ktap_finish
