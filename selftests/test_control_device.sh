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
# a write of exactly 1 MiB as one batch and one byte more refused, who
# may write (another user: EACCES at open; root without CAP_SYS_ADMIN:
# EPERM), and an open file holding the module (rmmod refused until it is
# closed: no write can run after the unload).
. ./bp_lib.sh
ktap_plan 17
EPERM=1 E2BIG=7 EACCES=13 EINVAL=22
S=$BP_GETPPID

bp_load
ktap_check "node_is_a_char_device" test -c $BP_DEV
set -- $(ls -ln $BP_DEV)
ktap_check "node_is_root_0600" test "$1 $3" = "crw------- 0"
ktap_check "batch_through_the_device" sh -c "printf 'p:cdev/g $S\ncreate cdev\nenable cdev\n' | bpwrite $BP_DEV"
bphit 3 > /dev/null
ktap_check "it_counts" test "$(bp_probe_hits cdev g)" -ge 3
# said TEXT: the last write's output ($got) has TEXT.
said() { echo "$got" | grep -qF "$1"; }
got=$(printf 'p:bad/ %s\ncreate bad\np:bad/ vfs_read+x\n' "$S" | bpwrite $BP_DEV 2>&1)
ktap_check "bad_line_einval" said "(errno $EINVAL)"
ktap_check "bad_line_named" grep -q '^line 3: ' $BP_DEBUGFS/last_error
ktap_check "all_or_nothing" sh -c "test -r $BP_DEBUGFS/sets && ! grep -q '^bad ' $BP_DEBUGFS/sets"
# The whole of BP_MAX_WRITE in one write: comment lines to fill it, the
# set's lines at the end; one byte more is refused whole.
# A batch of exactly N bytes: the set's lines, then comment lines of at
# most 1000 bytes ('#'s) up to N.
batch_of() {
    printf "$2" > /tmp/cdev.big
    awk -v n=$(($1 - $(wc -c < /tmp/cdev.big))) 'BEGIN {
        full = sprintf("%999s", ""); gsub(/ /, "#", full)
        while (n > 0) { l = n > 1000 ? 1000 : n; print substr(full, 1, l - 1); n -= l } }' >> /tmp/cdev.big
}
batch_of 1048576 "p:big/ $S\ncreate big\n"
size=$(wc -c < /tmp/cdev.big)
echo "# one write of $size bytes"
ktap_check "one_mib_one_batch" sh -c "test $size -eq 1048576 && bpwrite $BP_DEV < /tmp/cdev.big && grep -q '^big ' $BP_DEBUGFS/sets"
batch_of 1048577 'unregister big\n'
echo "# then $(wc -c < /tmp/cdev.big) bytes"
got=$(bpwrite $BP_DEV < /tmp/cdev.big 2>&1)
ktap_check "over_one_mib_e2big" said "(errno $E2BIG)"
ktap_check "over_one_mib_changed_nothing" test "$(bp_state big)" = registered
rm -f /tmp/cdev.big
got=$(printf 'p:u/ vfs_read\ncreate u\n' | bpuser 1000 bpwrite $BP_DEV 2>&1)
ktap_check "non_root_gets_eacces" said "(errno $EACCES)"
got=$(printf 'p:n/ vfs_read\ncreate n\n' | bpnocap bpwrite $BP_DEV 2>&1)
ktap_check "root_without_cap_sys_admin_gets_eperm" said "(errno $EPERM)"
ktap_check "unregister" bp_ctl 'unregister cdev\nunregister big --sync\n'
# An open file holds the module: rmmod says it is in use, and a write on
# that file still runs.
exec 3> $BP_DEV
got=$(rmmod batchprobe 2>&1)
echo "# rmmod: $got"
# (kmod's rmmod: "is in use"; busybox's asks without waiting: EAGAIN.)
held=no
if [ -d /sys/module/batchprobe ] && echo "$got" | grep -qiE 'in use|temporarily unavailable'; then held=yes; fi
ktap_check "open_device_holds_the_module" test $held = yes
printf 'p:held/ %s\ncreate held\nunregister held --sync\n' "$S" >&3
ktap_check "the_open_file_still_writes" grep -q '^held freed' $BP_DEBUGFS/sets
exec 3>&-
ktap_check "rmmod" rmmod batchprobe
ktap_finish
