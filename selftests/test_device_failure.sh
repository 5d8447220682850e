#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a control device that cannot be made leaves the module loaded and controlled through debugfs, held by an open debugfs file like any module (fault injected with the test-only parameter fail_device=1)
# requires: CONFIG_KPROBES
#
# The module's init makes its debugfs files, then /dev/batchprobe; a tool
# may have a debugfs file open by then. Had init failed at the device, the
# module would be freed whatever its reference count, and that file's
# release would run freed code (review of 2026-12-05, item 6). The device's
# failure is not fatal: a warning, and control through debugfs' file.
# fail_device=1 makes misc_register's part fail (-EBUSY, as when no minor
# is left); no other way to make it fail goes without a kernel warning.
. ./bp_lib.sh
bp_skip_if_locked_down "debugfs' control file takes no writes there"
ktap_plan 10
EBUSY=16
BP_CTL=$BP_DEBUGFS/control
# (A marker, not a line count: the kernel's log may have wrapped.)
mark="bp-device-failure-$$-$(cut -d' ' -f1 /proc/uptime)"
echo "$mark" > /dev/kmsg
# A reader that opens a debugfs file the moment it exists, while insmod
# runs (as a tool waiting for the directory would), and keeps it open.
rm -f /tmp/df.opened /tmp/df.close
(
    until [ -r $BP_DEBUGFS/sets ] && exec 3< $BP_DEBUGFS/sets; do :; done
    touch /tmp/df.opened 3<&-
    # (Its children without the file: one left behind would hold the module.)
    while [ ! -e /tmp/df.close ]; do sleep 0.2 3<&-; done
) &
reader=$!
bp_load insmod_with_failing_device fail_device=1
ktap_check "device_failure_logged" sh -c \
    "dmesg | sed -n '/$mark/,\$p' | grep -qF 'batchprobe: /dev/batchprobe not made (-$EBUSY): control through debugfs only'"
ktap_check "no_device_node" test ! -e $BP_DEV
ktap_check "debugfs_control_takes_a_batch" bp_ctl "p:df/pid $BP_GETPPID\ncreate df\nenable df\n"
ktap_check "set_counts" test "$(bp_getppid_counts 3 df pid)" = 3
for _ in $(seq 50); do [ -e /tmp/df.opened ] && break; sleep 0.1; done
ktap_check "file_opened_during_load" test -e /tmp/df.opened
ktap_check "open_file_holds_module" sh -c '! rmmod batchprobe 2>/dev/null'
touch /tmp/df.close
kill $reader 2>/dev/null   # one that never got the file open stops here
wait $reader
ktap_check "unregister" bp_ctl 'unregister df --sync\n'
ktap_check "rmmod_once_closed" rmmod batchprobe
# Without the parameter the device is made.
insmod "$BP_KO"
ktap_check "default_load_makes_device" test -c $BP_DEV
rmmod batchprobe
ktap_finish
