#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: finished sets stay listed with their counts, but not without bound
# requires: CONFIG_KPROBES
#
# A finished set stays in `sets` with its final counts until a new set takes
# its name; a create of that name that fails keeps it listed. Only the 64
# most recent finished sets are kept: a tool naming its sets s1, s2, ...
# does not grow memory or the listing without bound. Counts read while a
# set tears down never drop to 0.
. ./bp_lib.sh
ktap_plan 8
ENOENT=2

bp_load
ktap_check "create_count_retire" bp_ctl 'p:keep/g '"${BP_GETPPID}"'\ncreate keep\nenable keep\n'
bphit 10 > /dev/null
ktap_check "retire" bp_ctl 'unregister keep --sync\n'
ktap_check "freed_set_keeps_its_hits" test "$(bp_field keep hits)" -ge 10
bp_expect_err "failed_create_same_name" "$ENOENT" 'p:keep/ no_such_function_xyz\ncreate keep\n'
ktap_check "failed_create_keeps_freed_set_listed" test "$(bp_state keep)" = freed
many=$(awk 'BEGIN { for (i = 1; i <= 100; i++) printf "p:s%d/ vfs_read\\ncreate s%d\\nunregister s%d\\n", i, i, i }')
bp_ctl "$many" && bp_ctl 'flush\n' && bp_ctl 'flush\n'
freed=$(grep -c ' freed ' $BP_DEBUGFS/sets)
echo "# $freed finished sets listed after 101"
ktap_check "at_most_64_finished_sets_listed" test "$freed" -le 64
ktap_check "rmmod" rmmod batchprobe
ktap_finish
