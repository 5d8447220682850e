#!/bin/sh
# `make demo`: show batchprobe loading and its debugfs interface.
set -e
. ./bp_lib.sh
echo "== insmod $BP_KO"
insmod "$BP_KO"
echo "== /proc/modules"; grep batchprobe /proc/modules
echo "== ls -la /sys/kernel/debug/batchprobe"; ls -la /sys/kernel/debug/batchprobe
echo "== rmmod batchprobe"; rmmod batchprobe
echo "== kernel log"; dmesg | grep batchprobe
