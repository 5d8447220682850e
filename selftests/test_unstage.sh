#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: -:SET drops what is staged for a set, so that a bad staged line cannot block its set for good
# requires: CONFIG_KPROBES
#
# Probe lines stage until their set's `create`. A create that fails (here:
# a symbol the kernel does not know) gives its lines back, since a failing
# write changes nothing; without a way to drop them, every later create of
# that set would fail the same way. `-:SET` drops them (as `-:` removes an
# event in kprobe_events), all or nothing with the rest of its write.
. ./bp_lib.sh
ktap_plan 14
ENOENT=2

kp0=$(kprobes_registered)   # before batchprobe's own (grace-period counters)
bp_load
ktap_check "stage_bad_line" bp_ctl 'p!:u/bad no_such_function_bp\n'
bp_expect_err "create_fails" "$ENOENT" 'create u\n'
bp_expect_err "create_fails_again_line_kept" "$ENOENT" 'create u\n'
ktap_check "unstage" bp_ctl '-:u\n'
bp_expect_err "nothing_left_to_create" "$ENOENT" 'create u\n'
ktap_check "restage_and_create" bp_ctl 'p!:u/good vfs_read\ncreate u\n'
ktap_check "one_probe_registered" test "$(bp_field u kprobes)" = 1
bp_expect_err "unstage_nothing_enoent" "$ENOENT" '-:nothing_staged\n'
# A write that fails while it runs gives back what its -: took: w's line
# is staged again, and w can still be created.
ktap_check "stage_w" bp_ctl 'p!:w/a vfs_write\n'
bp_expect_err "failing_write_with_unstage" "$ENOENT" '-:w\np!:x/b no_such_function_bp\ncreate x\n'
ktap_check "unstage_given_back" sh -c ". ./bp_lib.sh; bp_ctl 'create w\n' && test \"\$(bp_field w kprobes)\" = 1"
bp_ctl 'unregister u\nunregister w\nflush\n'
ktap_check "rmmod" rmmod batchprobe
ktap_check "nothing_left_registered" test "$(kprobes_registered)" -eq "$kp0"
ktap_finish
