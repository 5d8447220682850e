#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the test guest. Reads bp.mode= (check: the kselftest runner on
# our collection; shell; none (just boot); or MODE, for which it runs the
# collection's guest-MODE.sh: demo, bench, profile-direct, stress-direct) and
# bp.inject= (a deliberate fault, to prove the harness catches it) from the
# kernel command line (and for check bp.tests=, a comma-separated subset of
# the collection, or bp.speed=normal, the programs whose header does not say
# `# speed: slow`, nor `# speed: slow on FLAVOR...` naming bp.flavor=),
# runs that, prints a done marker and powers off.
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin:/usr/local/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
# What udev would make: the kselftest runner writes to /dev/stdout.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
# The lockdown LSM's mode, where the kernel has it (bp_locked_down).
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
mount -t tmpfs tmpfs /tmp

mode=check inject= tests= speed= flavor=
for arg in $(cat /proc/cmdline); do
    case "$arg" in
        bp.mode=*) mode=${arg#bp.mode=} ;;
        bp.inject=*) inject=${arg#bp.inject=} ;;
        bp.tests=*) tests=${arg#bp.tests=} ;;
        bp.speed=*) speed=${arg#bp.speed=} ;;
        bp.flavor=*) flavor=${arg#bp.flavor=} ;;
        bp.bench_*=*) v=${arg#bp.bench_}; export "BP_BENCH_${v%%=*}=$(echo "${v#*=}" | tr , ' ')" ;;
    esac
done
echo "BATCHPROBE-GUEST-START mode=$mode nproc=$(grep -c ^processor /proc/cpuinfo) kernel=$(uname -r)"

rc=0
case "$inject" in
    hang) echo "injected fault: hanging"; while :; do sleep 60; done ;;
    splat) echo "WARNING: CPU: 0 PID: 1 at injected-by-bp.inject" > /dev/kmsg ;;
esac
# kmemleak (debug kernel): forget what boot left behind, so that the scan
# after the tests reports only what they leaked.
KMEMLEAK=/sys/kernel/debug/kmemleak
# The automatic scan thread is turned off: mid-test it reports objects
# still waiting for an RCU grace period or a queued teardown (2026-11-30: "12
# new suspected memory leaks" mid-run, then a clean explicit scan after
# the tests); only the scans after the tests, with everything unloaded, count.
[ -e $KMEMLEAK ] && { echo scan=off > $KMEMLEAK; echo scan > $KMEMLEAK; echo clear > $KMEMLEAK; }
# The kselftest runner wants GNU timeout's --foreground, which busybox's
# lacks: a wrapper drops it (busybox timeout runs the test in the
# foreground anyway).
rm -f /usr/bin/timeout
printf '#!/bin/sh\n[ "$1" = --foreground ] && shift\nexec /bin/busybox timeout "$@"\n' > /usr/bin/timeout
chmod +x /usr/bin/timeout
KSFT=/kselftest
cd $KSFT/batchprobe
case "$mode" in
    check)
       # bp.tests=A.sh,B.sh: only those (plus inject_failure.sh, which
       # skips unless bp.inject=fail); bp.speed=normal: the collection's
       # programs but those marked `# speed: slow` (KUnit's attribute: what
       # `make check` leaves to `make check-all`), or `# speed: slow on
       # FLAVOR...` naming this guest's bp.flavor=; else the whole collection.
       sel=""
       if [ -n "$tests" ]; then
           for t in $(echo "$tests" | tr , ' ') inject_failure.sh; do sel="$sel -t batchprobe:$t"; done
       elif [ "$speed" = normal ]; then
           # In the collection's order (test_lockdown_confidentiality.sh last).
           slow=
           for t in $(sed -n 's/^batchprobe://p' $KSFT/kselftest-list.txt); do
               mark=$(sed -n 's/^# speed: //p' "$t" | head -1)
               case "$mark" in
                   slow) slow="$slow $t" ;;
                   "slow on "*) case " ${mark#slow on } " in
                                    *" $flavor "*) slow="$slow $t" ;;
                                    *) sel="$sel -t batchprobe:$t" ;;
                                esac ;;
                   *) sel="$sel -t batchprobe:$t" ;;
               esac
           done
           echo "bp.speed=normal: the programs slow on ${flavor:-every kernel} left out:$slow"
       fi
       if [ -n "$speed" ] && [ "$speed" != normal ] && [ "$speed" != all ]; then
           echo "unknown bp.speed=$speed (normal or all)"; rc=1
       elif [ -n "$sel" ]; then
           $KSFT/run_kselftest.sh $sel; rc=$?
       else
           $KSFT/run_kselftest.sh -c batchprobe; rc=$?
       fi
       # Every test unloads the module: anything unreferenced now leaked.
       # kmemleak only reports objects older than 5 s, and a second scan
       # settles what the first one saw mid-update.
       if [ -e $KMEMLEAK ]; then
           # (A debugfs file's size is 0: read it, `test -s` says nothing.)
           sleep 6; echo scan > $KMEMLEAK; echo scan > $KMEMLEAK
           leaks=$(cat $KMEMLEAK)
           if [ -n "$leaks" ]; then
               echo "kmemleak: suspected leaks after the selftests:"
               echo "$leaks"
               rc=1
           else
               echo "kmemleak scan after the selftests: clean"
           fi
       fi ;;
    shell) setsid cttyhack sh ;;
    # Boot and power off: the bundle's runner asks whether KVM works here.
    none) ;;
    *) if [ -f "./guest-$mode.sh" ]; then sh "./guest-$mode.sh"; rc=$?
       else echo "unknown bp.mode=$mode"; rc=1; fi ;;
esac
echo "BATCHPROBE-GUEST-DONE rc=$rc"
sync
reboot -f
