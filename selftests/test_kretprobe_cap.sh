#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: kretprobe instances preallocated per set are capped
# requires: CONFIG_KRETPROBES
#
# r4096: preallocates 4096 instances per function; on a glob of thousands
# of functions that would be millions. A set preallocates at most 262,144
# (maxactive summed): glob members beyond are skipped (ENOSPC), an explicit
# line beyond fails the create with ENOSPC. Forced onto kretprobes (r4096!:):
# on functions ftrace can trace, r4096: would be fretprobes.
# The sets' memory cap (max_return_pool_kib) does not bind first here: on
# 2 possible CPUs the 64 take ~17 MiB of 256 (test_return_pool_cap.sh).
. ./bp_lib.sh
ktap_plan 6
ENOSPC=28

bp_load
ktap_check "r4096_on_a_big_glob" bp_ctl 'r4096!:rc/ *_show max=200\ncreate rc\n'
n=$(bp_field rc kretprobes) sk=$(bp_field rc skipped)
echo "# r4096: on *_show (max=200): $n kretprobes, $sk skipped"
ktap_check "at_most_64_of_4096" test "$n" -le 64
ktap_check "rest_skipped" test "$sk" -gt 0
lines=$(awk 'BEGIN { for (i = 0; i < 65; i++) printf "r4096!:re/r%d vfs_read\\n", i }')
bp_expect_err "explicit_beyond_cap_enospc" "$ENOSPC" "${lines}create re\n"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
