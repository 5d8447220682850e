#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: 40 cycles of load, create, enable, async unregister, unload with teardown pending
# requires: CONFIG_KPROBES, CONFIG_KRETPROBES, CONFIG_FPROBE, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
# speed: slow
#
# Each cycle loads the module, creates a set of kprobes, kretprobes (both
# forced: p!:, r!:), fprobes, fretprobes (p: and r: at +0) and a direct
# call, enables it, retires it asynchronously and unloads at once, with the
# teardown still queued: unload must wait for it (and for the RCU callbacks
# that free the slots), every time, and leave no kprobe, direct call or
# other ftrace user behind. BP_UNLOAD_CYCLES (40; 20 under KASAN, where a
# cycle costs several times more: make check's six flavors must fit CI's
# 90 minutes on two cores).
. ./bp_lib.sh
ktap_plan 5
# Loads the module itself, once per cycle.
bp_cleanup_on_exit
T=/sys/kernel/tracing
default=40
[ -e /sys/kernel/debug/kmemleak ] && default=20
cycles=${BP_UNLOAD_CYCLES:-$default}
kp_base=$(kprobes_registered) d_base=$(direct_attached) ef_base=$(ftrace_enabled)
bad=0
for i in $(seq 1 "$cycles"); do
    insmod "$BP_KO" || { bad=$((bad + 1)); continue; }
    bp_ctl 'p!:u/ vfs_read\np!:u/ '"${BP_SYS}get*"' max=4\nr!:u/r vfs_write\np:u/f vfs_read\np:u/ '"${BP_SYS}get*"' max=4\nr:u/fr vfs_write\nd:u/d '"${BP_GETPPID}"'\ncreate u\nenable u\nunregister u\n' || bad=$((bad + 1))
    bphit 10 > /dev/null
    rmmod batchprobe || bad=$((bad + 1))
done
echo "# $cycles cycles, $bad failed steps"
ktap_check "every_cycle_loaded_created_and_unloaded" test "$bad" -eq 0
ktap_check "module_gone" sh -c "! grep -q '^batchprobe ' /proc/modules"
ktap_check "no_kprobe_left" test "$(kprobes_registered)" -eq "$kp_base"
ktap_check "no_direct_call_left" test "$(direct_attached)" -eq "$d_base"
ktap_check "no_fprobe_or_ftrace_user_left" test "$(ftrace_enabled)" = "$ef_base"
ktap_finish
