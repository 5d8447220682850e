#!/bin/sh
# `make demo`: show batchprobe loading and its debugfs interface.
set -e
echo "== insmod /batchprobe.ko"
insmod /batchprobe.ko
echo "== /proc/modules"; grep batchprobe /proc/modules
echo "== ls -la /sys/kernel/debug/batchprobe"; ls -la /sys/kernel/debug/batchprobe
echo "== rmmod batchprobe"; rmmod batchprobe
echo "== kernel log"; dmesg | grep batchprobe
