#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a set's return-instance pools are capped by memory on this machine's possible CPUs (max_return_pool_kib): an explicit line past the cap fails the create with ENOSPC naming the set and the figure against the cap, a glob stops short of it, and stats shows each set's figure
# requires: CONFIG_KRETPROBES
#
# Each kretprobe (and, through 6.13, a set's return fprobe) keeps its
# instances in a rethook whose objpool gives every possible CPU a ring as
# large as the whole pool: the memory grows with the possible-CPU count.
# stats shows a set's estimate (return_pool_bytes=); the module parameter
# max_return_pool_kib caps it (default 256 MiB; lowered here, at load and
# then at run time, so that a 2-CPU guest reaches it).
. ./bp_lib.sh
ktap_plan 18
ENOSPC=28
PARAM=/sys/module/batchprobe/parameters/max_return_pool_kib
cpus=$(awk -F- '{ print ($2 == "" ? 1 : $2 - $1 + 1) }' /sys/devices/system/cpu/possible)
echo "# possible CPUs: $cpus"

bp_load insmod_with_a_1_MiB_cap max_return_pool_kib=1024
ktap_check "the_parameter_reads_back" test "$(cat $PARAM 2>&1)" = 1024
# One r4096!: kretprobe: a ring of 4096 pointers (32 KiB) on every CPU.
ktap_check "one_r4096_kretprobe" bp_ctl 'r4096!:one/r vfs_read\ncreate one\n'
f=$(bp_stats_field one return_pool_bytes)
echo "# one r4096 kretprobe: ${f:-none} bytes"
ktap_check "stats_shows_its_pool" test "${f:-0}" -ge $((cpus * 32768))
ktap_check "entry_probes_take_none" bp_ctl 'p!:ent/p vfs_read\ncreate ent\n'
ktap_check "stats_shows_0_for_them" test "$(bp_stats_field ent return_pool_bytes)" = 0
# Room for three such kretprobes, not four, from now on.
kib=$((f * 7 / 2 / 1024))
cap=$((kib * 1024))
ktap_check "lowered_at_run_time" sh -c "echo $kib > $PARAM"
lines=""
for i in 1 2 3 4; do lines="${lines}r4096!:big/r$i vfs_read\n"; done
bp_expect_err "explicit_fourth_past_the_cap_enospc" "$ENOSPC" "${lines}create big\n"
echo "# $(cat $BP_DEBUGFS/last_error)"
ktap_check "last_error_names_set_figure_and_cap" grep -q \
    "vfs_read: set big's return-instance pools would take $((4 * f)) bytes on $cpus possible CPUs, past the cap of $cap bytes" \
    $BP_DEBUGFS/last_error
ktap_check "no_set_big" sh -c "! grep -q '^big ' $BP_DEBUGFS/sets"
# A glob stops at the cap: three kretprobes, the other members skipped.
ktap_check "glob_past_the_cap" bp_ctl 'r4096!:g/ *_show max=64\ncreate g\n'
echo "# glob: $(bp_field g kretprobes) kretprobes, $(bp_field g skipped) skipped, $(bp_stats_field g return_pool_bytes) bytes"
ktap_check "glob_keeps_three" test "$(bp_field g kretprobes)" = 3
ktap_check "glob_skips_the_rest" test "$(bp_field g skipped)" -gt 0
ktap_check "glob_figure_is_three_pools" test "$(bp_stats_field g return_pool_bytes)" = $((3 * f))
# A cap of 0 refuses every return probe.
ktap_check "cap_0" sh -c "echo 0 > $PARAM"
bp_expect_err "cap_0_refuses_a_kretprobe" "$ENOSPC" 'r!:z/r vfs_read\ncreate z\n'
# A plain r: (a return fprobe where fprobe serves it): through 6.13 its
# pool is the set's; on fgraph there is none (the shadow stack is per task).
echo 262144 > $PARAM
bp_ctl 'r:fr/r vfs_read\ncreate fr\n'
kind=$(bp_probe_kind fr r) fr=$(bp_stats_field fr return_pool_bytes)
echo "# r: on vfs_read: $kind, $fr bytes"
if [ "$kind" = fretprobe ] && fprobe_on_fgraph; then
    ktap_check "plain_r_figure" test "$fr" = 0
else
    ktap_check "plain_r_figure" test "${fr:-0}" -gt 0
fi
bp_unregister_all > /dev/null
ktap_check "rmmod" rmmod batchprobe
ktap_finish
