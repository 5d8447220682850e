#!/bin/busybox sh
# PID 1 of the test guest. Reads bp.mode= (check, demo, bench, shell, or
# the name of another selftests/NAME.sh to run) and
# bp.inject= (a deliberate fault, to prove the harness catches it) from the
# kernel command line, runs that, prints a done marker and powers off.
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t tmpfs tmpfs /tmp

mode=check inject=
for arg in $(cat /proc/cmdline); do
    case "$arg" in
        bp.mode=*) mode=${arg#bp.mode=} ;;
        bp.inject=*) inject=${arg#bp.inject=} ;;
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
[ -e $KMEMLEAK ] && { echo scan > $KMEMLEAK; echo clear > $KMEMLEAK; }
case "$mode" in
    check) BP_INJECT=$inject /selftests/run.sh; rc=$?
       # Every test unloads the module: anything unreferenced now leaked.
       # kmemleak only reports objects older than 5 s, and a second scan
       # settles what the first one saw mid-update.
       if [ -e $KMEMLEAK ]; then
           sleep 6; echo scan > $KMEMLEAK; echo scan > $KMEMLEAK
           if [ -s $KMEMLEAK ]; then
               echo "kmemleak: suspected leaks after the selftests:"
               cat $KMEMLEAK
               rc=1
           else
               echo "kmemleak scan after the selftests: clean"
           fi
       fi ;;
    demo) /selftests/demo.sh; rc=$? ;;
    bench) /selftests/bench.sh; rc=$? ;;
    shell) setsid cttyhack sh ;;
    *) if [ -x "/selftests/$mode.sh" ]; then "/selftests/$mode.sh"; rc=$?
       else echo "unknown bp.mode=$mode"; rc=1; fi ;;
esac
echo "BATCHPROBE-GUEST-DONE rc=$rc"
sync
reboot -f
