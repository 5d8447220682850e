#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: locked down as a Secure Boot machine is (lockdown=integrity, module.sig_enforce=1): the unsigned module is refused in the kernel's words, the signed one loads untainted, debugfs' control file cannot be opened for writing while the read-only files can, and the control device, batchprobe's event records and kprobe_events all work
# requires: CONFIG_KPROBES
#
# make check boots the locked-down flavor (distro-7.3: CONFIG_MODULE_SIG
# with the kernel's own build-time key, the lockdown LSM) with
# lockdown=integrity module.sig_enforce=1 (kernel_lockdown_args in
# scripts/lib.sh), and signs every module of this collection with that key
# (scripts/build-initramfs.sh); batchprobe.ko.unsigned is the same build
# before signing. Elsewhere this program skips; every other program runs
# on the locked-down flavor too, over the control device (bp_ctl), and
# those that need what lockdown forbids skip saying so.
. ./bp_lib.sh
bp_locked_down || bp_skip_all "not locked down (make check boots the distro-7.3 flavor with lockdown=integrity)"
ktap_plan 14
EPERM=1
S=$BP_GETPPID
T=/sys/kernel/tracing

ktap_check "lockdown_integrity" grep -q '\[integrity\]' /sys/kernel/security/lockdown
# The build before signing is refused, the kernel saying why: with
# sig_enforce by the signature check, else by lockdown itself. On a kernel
# whose key we do not have (Debian's image booted with lockdown=integrity by
# hand) the collection's module is that unsigned build, and nothing after
# the refusal can run.
unsigned=./batchprobe.ko.unsigned
[ -f "$unsigned" ] || unsigned=$BP_KO
if [ "$(cat /sys/module/module/parameters/sig_enforce)" = Y ]; then
    why='Loading of unsigned module is rejected'
else
    why='Lockdown: insmod: unsigned module loading is restricted'
fi
bp_cleanup_on_exit
mark="bp-test-lockdown-$$"
echo "$mark" > /dev/kmsg
out=$(insmod "$unsigned" 2>&1)
ktap_print_msg "insmod ${unsigned#./}: $out"
ktap_check "unsigned_module_refused" test ! -d /sys/module/batchprobe
ktap_check "refusal_in_the_kernel_log" sh -c "dmesg | sed -n '/$mark/,\$p' | grep -qF '$why'"
if [ "$unsigned" = "$BP_KO" ]; then
    for c in sig_enforce insmod_signed signed_module_untainted debugfs_control_refused_eperm \
        debugfs_read_only_files_open batch_through_the_device it_counts event_records \
        kprobe_events_line kprobe_events_records rmmod; do
        ktap_skip "$c" "no module here is signed with a key this kernel trusts"
    done
    ktap_finish
fi
ktap_check "sig_enforce" test "$(cat /sys/module/module/parameters/sig_enforce)" = Y
bp_load insmod_signed
# An unsigned module would taint the kernel with E (TAINT_UNSIGNED_MODULE).
ktap_check "signed_module_untainted" sh -c "! grep -q E /sys/module/batchprobe/taint"
# debugfs: a file that can be written does not open (LOCKDOWN_DEBUGFS),
# read-only ones do.
got=$(printf 'flush\n' | bpwrite $BP_DEBUGFS/control 2>&1)
ktap_check "debugfs_control_refused_eperm" sh -c "echo '$got' | grep -qF '(errno $EPERM)'"
ktap_check "debugfs_read_only_files_open" sh -c "cat $BP_DEBUGFS/sets $BP_DEBUGFS/stats $BP_DEBUGFS/last_error > /dev/null"
# The control device: a set, armed in one batch, counting.
ktap_check "batch_through_the_device" bp_ctl "p:ld/named $S\ncreate ld\nenable ld\n"
bphit 3 > /dev/null
ktap_check "it_counts" test "$(bp_probe_hits ld named)" -ge 3
# Its event's records (tracefs is a confidentiality reason: integrity
# leaves it open).
on=$(cat $T/tracing_on)
echo 1 > $T/tracing_on
echo > $T/trace
echo 'comm == "bphit"' > $T/events/ld/named/filter
echo 1 > $T/events/ld/named/enable
bphit 3 > /dev/null
echo 0 > $T/events/ld/named/enable
echo 0 > $T/events/ld/named/filter
ktap_check "event_records" test "$(grep -c ' named: ' $T/trace)" -eq 3
# kprobe_events, the tool users had, works here too.
echo > $T/trace
ktap_check "kprobe_events_line" sh -c "echo 'p:kprobes/kld $S' >> $T/kprobe_events"
echo 'comm == "bphit"' > $T/events/kprobes/kld/filter
echo 1 > $T/events/kprobes/kld/enable
bphit 3 > /dev/null
echo 0 > $T/events/kprobes/kld/enable
ktap_check "kprobe_events_records" test "$(grep -c ' kld: ' $T/trace)" -eq 3
echo '-:kprobes/kld' >> $T/kprobe_events
echo "$on" > $T/tracing_on
ktap_check "rmmod" sh -c ". ./bp_lib.sh; bp_ctl 'unregister ld --sync\n' && rmmod batchprobe"
ktap_finish
