#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: who may write control, and what stats shows of recorded values
# requires: CONFIG_KPROBES, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
#
# control is 0600 root: another user cannot even open it (EACCES). Root
# that dropped CAP_SYS_ADMIN cannot attach probes either (EPERM), as with
# kprobe_events. A direct set in record mode keeps each function's last
# first argument (often a kernel pointer); stats shows it as %pK does:
# hashed with kptr_restrict=0, raw at 1 for a reader with CAP_SYSLOG,
# zeros at 2.
. ./bp_lib.sh
ktap_plan 9
EPERM=1 EACCES=13

bp_load
out=$(printf 'p:u/ vfs_read\ncreate u\n' | bpuser 1000 bpwrite $BP_CTL 2>&1)
ktap_check "non_root_gets_eacces" sh -c "echo '$out' | grep -qF '(errno $EACCES)'"
out=$(printf 'p:n/ vfs_read\ncreate n\n' | bpnocap bpwrite $BP_CTL 2>&1)
ktap_check "root_without_cap_sys_admin_gets_eperm" sh -c "echo '$out' | grep -qF '(errno $EPERM)'"
ktap_check "refused_writers_created_nothing" test -z "$(grep -v '^#' $BP_DEBUGFS/sets)"
ktap_check "record_set" bp_ctl 'd:rec/pid '"${BP_GETPPID}"'\ncreate rec\nenable rec\ndirect rec record\n'
bphit 5 > /dev/null
arg() { sed -n 's/^  direct pid .* last_arg=\([0-9a-f]*\)$/\1/p' $BP_DEBUGFS/stats; }
old=$(cat /proc/sys/kernel/kptr_restrict)
echo 2 > /proc/sys/kernel/kptr_restrict
ktap_check "kptr_restrict_2_shows_zeros" test "$(arg | tr -d 0)" = ""
echo 1 > /proc/sys/kernel/kptr_restrict
raw=$(arg)
echo 0 > /proc/sys/kernel/kptr_restrict
hashed=$(arg)
echo "$old" > /proc/sys/kernel/kptr_restrict
echo "# kptr_restrict=1: $raw, 0: $hashed"
# The argument of __x64_sys_getppid is a pt_regs pointer: a kernel address.
ktap_check "kptr_restrict_1_shows_raw_to_root" sh -c "echo $raw | grep -q '^ff'"
ktap_check "kptr_restrict_0_shows_hash_not_address" sh -c "test -n '$hashed' && test '$hashed' != '$raw'"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
