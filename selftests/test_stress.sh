#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: 4 writers on overlapping sets for 30 s while every CPU runs the probed functions
# requires: CONFIG_KPROBES, CONFIG_KRETPROBES, CONFIG_FPROBE, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
# speed: slow
#
# Four writers create, enable, disable, retarget and unregister sets drawn
# from one small pool of names (so they collide: EEXIST, ENOENT, EBUSY are
# expected answers) for BP_STRESS_S (30) seconds, while one task per CPU
# calls the probed functions. Nothing may hang (the runner's timeout and
# the kernel's hung-task detector watch), the kernel's view must agree with
# the module's afterwards, and a fresh set then counts exactly: its kprobe,
# its fprobe and its direct call on the same function see the same calls.
# Writers 2 and 4 force their p: and r: lines onto kprobes and kretprobes
# (p!:, r!:), writers 1 and 3 leave them to fprobes where ftrace can trace
# the function: the sets they share by name mix both backends.
. ./bp_lib.sh
ktap_plan 8
T=/sys/kernel/tracing
secs=${BP_STRESS_S:-30}
kp_base=$(kprobes_registered) d_base=$(direct_attached)

bp_load
ef0=$(ftrace_enabled)
rm -f /tmp/stress-stop /tmp/stress-w*
for c in $(seq 1 "$(grep -c ^processor /proc/cpuinfo)"); do
    (while [ ! -e /tmp/stress-stop ]; do bphit 2000 > /dev/null; cat /proc/version > /dev/null; done) &
done
# writer N: writes until the time is up; then "/tmp/stress-wN" holds its
# writes and how many of its creates, enables and unregisters were
# accepted (a refusal is an expected answer, but writes that were all
# refused stressed nothing).
writer() {
    i=0 cr=0 en=0 un=0 end=$(($(cut -d. -f1 /proc/uptime) + secs))
    b=; [ $(($1 % 2)) -eq 0 ] && b='!'
    while [ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ]; do
        s=w$(((i * 7 + $1) % 5))
        op=$((i % 8))
        if case $op in
            0) bp_ctl "p$b:$s/ vfs_read\np$b:$s/g ${BP_GETPPID}\nr$b:$s/r vfs_write\nd:$s/d ${BP_GETPPID}\ncreate $s\n" ;;
            1) bp_ctl "p$b:$s/ ${BP_SYS}get* max=8\nd:$s/ version_proc_show\ncreate $s --noopt\nenable $s\n" ;;
            2) bp_ctl "enable $s\n" ;;
            3) bp_ctl "disable $s\n" ;;
            4) bp_ctl "direct $s record\n" ;;
            5) bp_ctl "unregister $s\n" ;;
            6) bp_ctl "enable $s\ndisable $s\nenable $s\n" ;;
            7) bp_ctl "unregister $s --sync\n" ;;
        esac > /dev/null 2>&1; then
            case $op in
                0 | 1) cr=$((cr + 1)) ;;
                2 | 6) en=$((en + 1)) ;;
                5 | 7) un=$((un + 1)) ;;
            esac
        fi
        i=$((i + 1))
    done
    echo "$i $cr $en $un" > "/tmp/stress-w$1"
}
for w in 1 2 3 4; do writer "$w" & done
wait_writers() { for w in 1 2 3 4; do while [ ! -e "/tmp/stress-w$w" ]; do sleep 1; done; done; }
wait_writers
touch /tmp/stress-stop
wait
for w in 1 2 3 4; do
    read -r n cr en un < "/tmp/stress-w$w"
    echo "# writer $w: $n writes; accepted: $cr creates, $en enables, $un unregisters"
done
# Creates, enables and unregisters were each accepted, by one writer or
# another (most are refused: the names collide on purpose; on the debug
# kernels a writer makes about 14 writes in the 30 s, and one of them had
# none of its own accepted on 2026-12-06).
ktap_check "creates_enables_unregisters_accepted" \
    awk '{ c += $2; e += $3; u += $4 } END { exit NR != 4 || c < 1 || e < 1 || u < 1 }' \
    /tmp/stress-w1 /tmp/stress-w2 /tmp/stress-w3 /tmp/stress-w4
bp_ctl 'flush\n'
ktap_check "kprobes_agree_with_kernel" bp_agrees_kprobes "$kp_base"
ktap_check "direct_calls_agree_with_ftrace" bp_agrees_direct "$d_base"
ktap_check "unregister_everything" bp_unregister_all
# ftrace calls out from what it did before the writers (batchprobe's own
# counters: kprobes, on ftrace where their functions are traceable), only.
ktap_check "no_fprobe_or_ftrace_user_left" test "$(ftrace_enabled)" = "$ef0"
bp_ctl 'p!:c/k '"${BP_GETPPID}"'\np:c/f '"${BP_GETPPID}"'\nd:c/d '"${BP_GETPPID}"'\ncreate c\nenable c\n'
bphit 1000 > /dev/null
bp_ctl 'disable c\n'
k=$(bp_probe_hits c k) f=$(bp_probe_hits c f) d=$(bp_probe_hits c d)
echo "# fresh set after the stress: kprobe $k hits, fprobe $f hits, direct $d hits"
ktap_check "fresh_set_counts_exactly" sh -c "test '$k' -ge 1000 && test '$k' = '$d' && test '$k' = '$f'"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
