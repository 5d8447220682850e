#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the in-kernel API refuses bad arguments with the errnos
#   include/batchprobe.h documents (the C client calls it with each at load),
#   names the failing target, leaves nothing registered, and refuses a
#   second retire of the same set.
# requires: bpclient_c.ko
. ./bp_lib.sh
bp_skip_if_locked_down "the C client is driven through its debugfs files (control, targets), which lockdown refuses to open for writing"
ktap_plan 32
bp_load insmod_batchprobe
before=$(kprobes_registered)
ktap_check "insmod_client" insmod "$BP_CLIENT_C" enable=0 check_api=1
err() { sed -n "s/^$1 //p" /sys/kernel/debug/bpclient_c/errors; }
# The header's errnos: EINVAL 22, E2BIG 7, ENAMETOOLONG 36, ENOENT 2,
# EOPNOTSUPP 95.
for c in null_desc:22 null_targets:22 zero_count:22 too_many:7 null_handler:22 null_owner:22 \
         null_name:22 long_name:36 bad_name:22 bad_flags:22 bad_kind:22 \
         symbol_and_addr:22 neither_symbol_nor_addr:22 addr_with_offset:22 kretprobe_offset:22 \
         unknown_symbol:2 unknown_direct_symbol:2 long_symbol:36 \
         direct_exit_mixed:22 direct_exit_noreturn:95 \
         enable_null:22 unregister_null:22 read_counts_null:22; do
    name=${c%:*} want=-${c#*:}
    ktap_check "$name" test "$(err "$name")" = "$want"
done
ktap_check "failure_names_the_symbol" sh -c "dmesg | grep -q 'api: set bpclient_c.bad: target [0-9]*: kprobe batchprobe_no_such_symbol+0: unknown symbol (ENOENT)'"
ktap_check "nothing_left_registered" test "$(kprobes_registered)" -eq $((before + 2))
ktap_check "no_failed_set_listed" sh -c "! grep -q '^bpclient_c.bad ' $BP_DEBUGFS/sets"
ktap_check "bad_argument_logged" sh -c "dmesg | grep -q 'batchprobe: api: no owner module (EINVAL)'"
printf retire | bpwrite /sys/kernel/debug/bpclient_c/control
ktap_check "second_retire_refused_enoent" sh -c "printf retire_again | bpwrite /sys/kernel/debug/bpclient_c/control 2>&1 | grep -qF '(errno 2)'"
ktap_check "rmmod_client" rmmod bpclient_c
ktap_check "rmmod_batchprobe" rmmod batchprobe
ktap_finish
