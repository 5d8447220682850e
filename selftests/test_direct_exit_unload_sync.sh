#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: `unregister SET --sync` of an exit set returns once the module's pin on itself is gone too: rmmod right after it succeeds, three times over, and `flush` does the same
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF
#
# An exit set pins the module while a task may be inside a function its
# trampoline called; a release poll (100 ms, backing off to 5 s) drops
# the pin after an RCU-tasks grace period. `--sync` waited for the
# teardown but not for the pin: rmmod at once said "Resource temporarily
# unavailable" for seconds (the review of 2026-12-05, item 11 of its
# issue). Now the write waits for the pin (10 s at most, and last_error
# says what still holds it past that).
. ./bp_lib.sh
ktap_plan 9
S=$BP_GETPPID

bp_load
for i in 1 2 3; do
    if [ "$i" -gt 1 ]; then insmod "$BP_KO" || true; fi
    ok=1
    bp_ctl "d:ux/pid $S\ncreate ux --exit\nenable ux\n" || ok=0
    bphit 10 > /dev/null
    bp_ctl 'unregister ux --sync\n' || ok=0
    out=$(rmmod batchprobe 2>&1) || { ok=0; echo "# rmmod: $out"; }
    ktap_check "round_${i}_rmmod_right_after_sync" test "$ok" -eq 1
    ktap_check "round_${i}_unloaded" test ! -d /sys/module/batchprobe
done
ktap_check "insmod_again" insmod "$BP_KO"
bp_ctl "d:uf/pid $S\ncreate uf --exit\nenable uf\n"
bphit 10 > /dev/null
bp_ctl 'unregister uf\nflush\n'
ktap_check "rmmod_right_after_flush" rmmod batchprobe
ktap_finish
