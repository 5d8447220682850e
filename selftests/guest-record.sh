#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bp.mode=record, guest side (scripts/record-fixtures.sh): the module's
# files as this kernel writes them, for the host tests of the batchprobe
# command's readers (tools/batchprobe/tests/data/FLAVOR/). Sets of every
# kind in every state the readers meet: a glob counted through fprobes and
# kprobes, int3 probes and return probes, an address, a direct set in
# record mode, an exit set with histograms and errno counts, a set
# disabled, a set only staged, glob members refused; then a refused
# batch's last_error with its caret, one refused at create, and records
# from tracefs (entry, return, exit). Each file is printed between
# "BATCHPROBE-FILE-BEGIN NAME" and "BATCHPROBE-FILE-END".
. ./bp_lib.sh
dmesg -n 1
insmod "$BP_KO" || exit 1
T=/sys/kernel/tracing
show() {
    echo "BATCHPROBE-FILE-BEGIN $1"
    cat "$2"
    echo "BATCHPROBE-FILE-END"
}
addr=$(awk -v s="$BP_GETPID" '$3 == s { print "0x" $1; exit }' /proc/kallsyms)
bp_ctl "p:cnt/ vfs_read*\np:cnt/ $BP_GETPPID\nr:cnt/ret_ppid $BP_GETPPID\np!:cnt/int3_ppid $BP_GETPPID\nr!:cnt/int3_ret $BP_GETPPID\np!:cnt/ __die*\np:cnt/at_addr $addr\ncreate cnt\nenable cnt\n" || exit 1
bp_ctl "d:rec/ ${BP_GETPPID}\ncreate rec\nenable rec\ndirect rec record\n" || exit 1
R='d:lat/opens do_sys_openat2 $arg1 filename:ustring ret=$retval\n'
bp_ctl "${R}d:lat/ do_*open*\nd:lat/ *mkdirat\nd:lat/ vfs_stat*\nd:lat/ *_sys_ppoll\ncreate lat --exit --hist --errors\nenable lat\n" || exit 1
bp_ctl "p:off/ vfs_write\ncreate off\n" || exit 1
bp_ctl "p:staged/ vfs_read\np:staged/ vfs_write\n" || exit 1
echo > $T/trace
echo 1 > $T/events/cnt/enable
echo 1 > $T/events/lat/opens/enable
bphit 5 > /dev/null
bpsleep 20; bpsleep 20
bpopen /no/such/file 5 > /dev/null
bpopen /proc/version 5 > /dev/null
bpmkdir / 3 > /dev/null
ls -l /proc > /dev/null
cat /proc/version > /dev/null
echo 0 > $T/events/cnt/enable
echo 0 > $T/events/lat/opens/enable
show sets $BP_DEBUGFS/sets
show stats $BP_DEBUGFS/stats
show trace $T/trace
# A parse error (caret), then a refusal at create.
printf 'p:bad/ vfs_read+zz\ncreate bad\n' | bpwrite "$BP_CTL" 2>/dev/null
show last_error.parse $BP_DEBUGFS/last_error
printf 'p:oops/a vfs_read\np:oops/b no_such_function\ncreate oops\n' | bpwrite "$BP_CTL" 2>/dev/null
show last_error.create $BP_DEBUGFS/last_error
[ -e /sys/kernel/security/lockdown ] && show lockdown /sys/kernel/security/lockdown
bp_ctl 'unregister cnt\nunregister rec\nunregister lat\nunregister off\n-:staged\nflush\n'
show sets.empty $BP_DEBUGFS/sets
bp_wait_unpinned
rmmod batchprobe
dmesg -n 7
