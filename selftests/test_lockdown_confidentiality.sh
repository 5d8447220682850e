#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: locked down for confidentiality (raised at run time, as the last program): the kernel's own kprobe registration (perf's kprobe PMU) is refused, and so is every batchprobe write that stages, creates or arms probes (EPERM, in last_error, the lockdown LSM's line in the log), with nothing made; a set made before still counts and can be retired, the read-only files still read, and the module unloads
# requires: CONFIG_KPROBES, /sys/kernel/security/lockdown
#
# lockdown=confidentiality forbids kprobes (LOCKDOWN_KPROBES), which
# kprobe_events and fprobe events check at registration: batchprobe's
# probes read kernel memory just as well (fetch arguments) and hand their
# records to perf, which this mode leaves open. The mode can be raised at
# run time and never lowered, so this program runs last (selftests/
# Makefile), on every kernel with the lockdown LSM (distro-7.3, Debian's
# image): the programs after it would find tracefs closed.
. ./bp_lib.sh
L=/sys/kernel/security/lockdown
ktap_plan 16
EPERM=1
S=$BP_GETPPID

bp_load
# The oracle before: the kernel registers a kprobe for perf.
ktap_check "kernel_kprobe_before" sh -c "bpkprobe $S | grep -qx ok"
ktap_check "set_before" bp_ctl "p:pre/named $S\ncreate pre\nenable pre\n"
before=$(bp_probe_hits pre named)
echo confidentiality > $L
ktap_check "confidentiality" grep -q '\[confidentiality\]' $L
mark="bp-test-lockdown-conf-$$"
echo "$mark" > /dev/kmsg
# The oracle: the same registration refused now, in the kernel's words.
out=$(bpkprobe $S)
ktap_check "kernel_kprobe_refused" test "$out" = "error $EPERM"
bp_expect_err "create_refused" $EPERM "p:conf/ev $S s=+0(\$stack):x64\ncreate conf\nenable conf\n"
ktap_check "last_error_names_line_and_why" sh -c "grep -q '^line 1: p:conf/ev .*locked down (lockdown=confidentiality)' $BP_DEBUGFS/last_error"
bp_expect_err "direct_set_refused" $EPERM "d:confd $S\ncreate confd\n"
bp_expect_err "enable_refused" $EPERM "disable pre\nenable pre\n"
ktap_check "last_error_names_the_enable" sh -c "grep -q '^line 2: enable pre: .*locked down' $BP_DEBUGFS/last_error"
ktap_check "nothing_made" sh -c "! grep -q '^conf' $BP_DEBUGFS/sets"
ktap_check "lockdown_log_line" sh -c "dmesg | sed -n '/$mark/,\$p' | grep -q 'Lockdown: bpwrite: use of kprobes is restricted'"
# What was made before stays: it counts, and it can go.
bphit 3 > /dev/null
ktap_check "set_before_still_counts" test "$(bp_probe_hits pre named)" -ge $((before + 3))
ktap_check "read_only_files_read" sh -c "cat $BP_DEBUGFS/sets $BP_DEBUGFS/stats > /dev/null"
ktap_check "teardown_allowed" bp_ctl "disable pre\nunregister pre --sync\n"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
