#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: /dev/batchprobe takes control writes as debugfs' control file does (one write one batch, up to 1 MiB, root with CAP_SYS_ADMIN only), and holds the module while open
# requires: CONFIG_KPROBES
#
# lockdown=integrity makes debugfs refuse to open a writable file; a misc
# device is not locked down, so /dev/batchprobe is the control path there
# (bp_ctl writes to it in every selftest; tests that name debugfs' control
# file keep that one tested). Here: the node (a character device, 0600
# root), a batch through it and its errors in last_error, all or nothing,
# a write of the whole 1 MiB as one batch and one byte more refused, who
# may write (another user: EACCES at open; root without CAP_SYS_ADMIN:
# EPERM), and an open file holding the module (rmmod refused until it is
# closed: no write can run after the unload).
. ./bp_lib.sh
ktap_plan 16
EPERM=1 E2BIG=7 EACCES=13 EINVAL=22
S=$BP_GETPPID

bp_load
ktap_check "node_is_a_char_device" test -c $BP_DEV
set -- $(ls -ln $BP_DEV)
ktap_check "node_is_root_0600" test "$1 $3" = "crw------- 0"
ktap_check "batch_through_the_device" sh -c "printf 'p:cdev/g $S\ncreate cdev\nenable cdev\n' | bpwrite $BP_DEV"
bphit 3 > /dev/null
ktap_check "it_counts" test "$(bp_probe_hits cdev g)" -ge 3
out=$(printf 'p:bad/ %s\ncreate bad\np:bad/ vfs_read+x\n' "$S" | bpwrite $BP_DEV 2>&1)
ktap_check "bad_line_einval" sh -c "echo '$out' | grep -qF '(errno $EINVAL)'"
ktap_check "bad_line_named" grep -q '^line 3: ' $BP_DEBUGFS/last_error
ktap_check "all_or_nothing" sh -c "! grep -q '^bad ' $BP_DEBUGFS/sets"
# The whole of BP_MAX_WRITE in one write: comment lines to fill it, the
# set's lines at the end; one byte more is refused whole.
comments() { # N lines of 1000 bytes: '#' and 999 more
    awk -v n="$1" 'BEGIN { l = sprintf("%999s", ""); gsub(/ /, "#", l); for (i = 0; i < n; i++) print l }'
}
{ comments 1048; printf 'p:big/ %s\ncreate big\n' "$S"; } > /tmp/cdev.big
size=$(wc -c < /tmp/cdev.big)
echo "# one write of $size bytes"
ktap_check "one_mib_one_batch" sh -c "test $size -le 1048576 && bpwrite $BP_DEV < /tmp/cdev.big && grep -q '^big ' $BP_DEBUGFS/sets"
{ comments 1049; printf 'unregister big\n'; } > /tmp/cdev.big
echo "# then $(wc -c < /tmp/cdev.big) bytes"
out=$(bpwrite $BP_DEV < /tmp/cdev.big 2>&1)
ktap_check "over_one_mib_e2big" sh -c "echo '$out' | grep -qF '(errno $E2BIG)'"
ktap_check "over_one_mib_changed_nothing" test "$(bp_state big)" = registered
rm -f /tmp/cdev.big
out=$(printf 'p:u/ vfs_read\ncreate u\n' | bpuser 1000 bpwrite $BP_DEV 2>&1)
ktap_check "non_root_gets_eacces" sh -c "echo '$out' | grep -qF '(errno $EACCES)'"
out=$(printf 'p:n/ vfs_read\ncreate n\n' | bpnocap bpwrite $BP_DEV 2>&1)
ktap_check "root_without_cap_sys_admin_gets_eperm" sh -c "echo '$out' | grep -qF '(errno $EPERM)'"
ktap_check "unregister" bp_ctl 'unregister cdev\nunregister big --sync\n'
# An open file holds the module.
exec 3> $BP_DEV
ktap_check "open_device_holds_the_module" sh -c '! rmmod batchprobe 2>/dev/null'
exec 3>&-
ktap_check "rmmod" rmmod batchprobe
ktap_finish
