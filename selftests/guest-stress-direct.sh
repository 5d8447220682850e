#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Attach and detach the first N (4000) ftrace-able functions as one direct
# set, CYCLES (100) times over: a soak for the kernel's text patching under
# the emulator (bp.mode=stress-direct, bp.bench_N, bp.bench_CYCLES).
. ./bp_lib.sh
N=${BP_BENCH_N:-4000}
CYCLES=${BP_BENCH_CYCLES:-100}
insmod "$BP_KO" || exit 1
i=0
while [ "$i" -lt "$CYCLES" ]; do
    bp_ctl "d:s$i/ * max=$N\ncreate s$i\nenable s$i\n" || { echo "STRESS create failed at $i"; exit 1; }
    bp_ctl "unregister s$i --sync\n" || { echo "STRESS unregister failed at $i"; exit 1; }
    i=$((i + 1))
    [ $((i % 10)) -eq 0 ] && echo "STRESS cycles=$i"
done
rmmod batchprobe
echo "STRESS done cycles=$CYCLES"
