#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: load, the debugfs directory appears, unload, it is gone, reload
# requires: CONFIG_KPROBES
#
# The module's lifecycle alone: no probe.
. ./bp_lib.sh
ktap_plan 8

bp_load
ktap_check "listed_in_proc_modules" grep -q '^batchprobe ' /proc/modules
ktap_check "debugfs_dir_appears" test -d "$BP_DEBUGFS"
ktap_check "rmmod" rmmod batchprobe
ktap_check "debugfs_dir_gone" test ! -e "$BP_DEBUGFS"
ktap_check "not_in_proc_modules" sh -c "! grep -q '^batchprobe ' /proc/modules"
bp_load reload
ktap_check "debugfs_dir_back_and_unload" sh -c "test -d $BP_DEBUGFS && rmmod batchprobe"
ktap_finish
