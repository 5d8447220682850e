#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make demo`, guest side: what batchprobe is for, in one boot and a minute
# or two.
#  1. The seed's workload: 256 kprobes registered, enabled, disabled and
#     removed through tracefs (one kprobe_events write, one grace period per
#     probe), then the same N through one batchprobe set; a side-by-side
#     table of wall-clock times, each phase timed around its writes. As in
#     the seed's script, each side sleeps 2 s after enable and after
#     disable (BP_DEMO_PAUSE): probes are enabled to trace for a while, and
#     the kernel's kprobe optimizer, which enable and disable both kick
#     (5 jiffies later it swaps int3s and jumps and waits for an RCU-tasks
#     grace period with kprobe_mutex held), has finished before the next
#     phase, as in real use. Without the pauses the next phase waits for
#     it: on Debian's 7.3 image that grace period is about 100 ms.
#  2. A direct set on a glob: one ftrace_ops, one patching pass, and
#     per-function call counts.
#  3. The debugfs files after one deliberate bad write: sets, stats,
#     last_error.
#  4. An exit set with --hist --errors on a few file-system entry points,
#     a short workload, then the slowest functions by p99 and the error
#     returns by errno, from stats, and a few of the return records one
#     of its lines writes (its arguments, the return value and the
#     duration), from trace_pipe.
. ./bp_lib.sh
. ./bench_lib.sh
N=${BP_DEMO_N:-256}
PAUSE=${BP_DEMO_PAUSE:-2}
# Kernel messages would interleave with the demo's output on the shared
# serial console: only emergencies go there until the end.
dmesg -n 1
insmod "$BP_KO" || exit 1
ms() { awk -v ns="$1" 'BEGIN { printf "%.1f", ns / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0fx", a / b; else print "-" }'; }

off=$(offset_for "$N")
echo "== 1. The seed's workload: $N kprobes, tracefs vs one batchprobe set"
echo "   (the first $N kallsyms text symbols that accept a probe at +$off, as the"
echo "   seed script picks them, beforehand; each phase is the wall time of its writes:"
echo "   tracefs registers with one kprobe_events write per probe, as the seed"
echo "   script does, batchprobe with one write for the whole set; both sleep"
echo "   ${PAUSE} s after enable and after disable, as the seed script does)"
echo > $T/kprobe_events
t_reg=$(tracefs_register "$N" "$off")
t_got=$(wc -l < $T/kprobe_events)
# wtime FILE TEXT: the wall time in ns of writing TEXT (printf escapes) to
# FILE: its open as `>` does it (O_TRUNC: what clears kprobe_events), one
# write and the close, timed in bpwrite (no shell in the time), the same
# way on both sides.
wtime() { printf "$2" | bpwrite -T "$1"; }
t_en=$(wtime $T/events/kprobes/enable '1\n')
sleep "$PAUSE"
t_dis=$(wtime $T/events/kprobes/enable '0\n')
sleep "$PAUSE"
t_rm=$(wtime $T/kprobe_events '')

# The same selection, one set: `p:` lines stage, `create` registers them in
# one batch; removal is the unregister write plus a flush, so it is timed
# until the probes are gone, like tracefs's synchronous removal.
C=$BP_DEBUGFS/control
b_reg=$(wtime $C "p:seed/ *+$off max=$N skip=*lock*\ncreate seed\n")
b_got=$(bp_field seed kprobes)
b_en=$(wtime $C 'enable seed\n')
sleep "$PAUSE"
b_dis=$(wtime $C 'disable seed\n')
sleep "$PAUSE"
b_rm=$(wtime $C 'unregister seed\nflush\n')
b_disarm=$(bp_timing seed disarm_ns)
b_call=$(bp_timing seed unregister_call_ns)
b_done=$(bp_timing seed unregister_complete_ns)

printf '\n   %-22s %12s %12s %8s\n' "phase, ms" "tracefs" "batchprobe" "speed-up"
printf '   %-22s %12s %12s %8s\n' "probes" "$t_got" "$b_got" ""
for p in reg:register en:enable dis:disable rm:remove; do
    k=${p%%:*} name=${p#*:}
    eval "t=\$t_$k b=\$b_$k"
    printf '   %-22s %12s %12s %8s\n' "$name" "$(ms "$t")" "$(ms "$b")" "$(ratio "$t" "$b")"
done
echo "   (batchprobe's own timers: the disarm that disable queued took $(ms "$b_disarm") ms,"
echo "   during the pause; the unregister write returned after $(ms "$b_call") ms,"
echo "   the probes were gone after $(ms "$b_done") ms; teardown is asynchronous, one"
echo "   unregister_kprobes batch on the module's workqueue, and remove above"
echo "   waited for it with flush. Each figure is the open, the write(2) and the"
echo "   close alone, no shell. Under QEMU TCG a text patch costs about a grace"
echo "   period: compare ratios, not times)"
[ "$t_got" = "$N" ] && [ "$b_got" = "$N" ] || { echo "demo: expected $N probes on both sides"; exit 1; }

echo
echo "== 2. A direct set on a glob: one ftrace_ops, one text-patching pass"
# getppid's entry as ftrace and a glob see it: __x64_sys_getppid on a
# clang-built kernel; on a GCC-built one (Debian's) that name is an alias
# of __do_sys_getppid, the one name kallsyms gives the address.
F=__x64_sys_getppid
grep -qx "$F" $T/available_filter_functions || F=__do_sys_getppid
G="${F%ppid}*"
echo "   \$ echo 'd:calls/ $G' > control; echo 'create calls' > control; echo 'enable calls' > control"
bp_ctl "d:calls/ $G\ncreate calls\nenable calls\n" || exit 1
echo "   \$ bptool calls getppid() 1000 times"
bphit 1000 > /dev/null
bp_ctl 'disable calls\n'
echo "   \$ cat stats    (the part about set calls)"
awk '$1 == "set" { show = ($2 == "calls") } show' "$BP_DEBUGFS/stats" | sed 's/^/   /'
hits=$(bp_probe_hits calls $F)
[ "${hits:-0}" -ge 1000 ] || { echo "demo: getppid was counted ${hits:-0} times, called 1000"; exit 1; }

echo
echo "== 3. One deliberate bad write, and what the debugfs files say"
echo "   \$ printf 'p:oops/a vfs_read\\np:oops/b no_such_function\\ncreate oops\\n' > control"
bp_ctl 'p:oops/a vfs_read\np:oops/b no_such_function\ncreate oops\n' 2>&1 | sed 's/^/   /'
echo "   \$ cat last_error"
sed 's/^/   /' "$BP_DEBUGFS/last_error"
echo "   \$ cat sets     (oops is not there: a batch is all or nothing)"
sed 's/^/   /' "$BP_DEBUGFS/sets"
grep -q '^oops ' "$BP_DEBUGFS/sets" && { echo "demo: the failed batch left set oops behind"; exit 1; }
echo "   \$ head -4 stats"
head -4 "$BP_DEBUGFS/stats" | sed 's/^/   /'

echo
echo "== 4. Where the time and the errors went: an exit set with --hist --errors"
# Functions a short workload calls and none blocks in for long (a task
# left inside a body keeps the module pinned: rmmod waits for it below).
# One line with fetch arguments: its function's return records (a named
# line's function is its own, not the glob's that also matches it).
R='d:lat/opens do_sys_openat2 $arg1 filename:ustring ret=$retval\n'
L="${R}d:lat/ *_sys_openat\nd:lat/ do_*open*\nd:lat/ *mkdirat\nd:lat/ vfs_stat*\nd:lat/ vfs_getattr*\nd:lat/ *_sys_ppoll\n"
echo "   \$ printf '$L' > control"
echo "   \$ echo 'create lat --exit --hist --errors' > control; echo 'enable lat' > control"
bp_ctl "${L}create lat --exit --hist --errors\nenable lat\n" || exit 1
T=/sys/kernel/tracing
echo "   \$ echo 1 > $T/events/lat/opens/enable"
echo > $T/trace
echo 1 > $T/events/lat/opens/enable
echo "   (a workload: two 20-ms sleeps, 5 opens of a missing file, 5 of /proc/version,"
echo "   3 mkdir of /, ls -l /proc, stat of a missing file)"
bpsleep 20; bpsleep 20
bpopen /no/such/file 5 > /dev/null
bpopen /proc/version 5 > /dev/null
bpmkdir / 3 > /dev/null
ls -l /proc > /dev/null
stat /no/such/file > /dev/null 2>&1
bp_ctl 'disable lat\n'
echo 0 > $T/events/lat/opens/enable
echo "   \$ grep bpopen $T/trace_pipe | head -3   (return records: the arguments, the return"
echo "     value, the call's duration in ns)"
grep -m 3 bpopen $T/trace_pipe | sed 's/^ */   /'
echo
echo "   $(bp_field lat direct) functions in one exit set; the slowest by p99 (stats' hist lines):"
printf '\n   %-24s %7s %12s %14s\n' "function" "calls" "mean, us" "p99 below, us"
awk '$1 == "set" { show = ($2 == "lat") } show && $1 == "hist"' "$BP_DEBUGFS/stats" |
    awk '{ for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
           printf "%s %s %s %s\n", $2, v["count"], v["mean_ns"], v["p99_lt_ns"] }' |
    sort -k4,4nr -k3,3nr | head -8 |
    awk '{ printf "   %-24s %7d %12.1f %14.1f\n", $1, $2, $3 / 1000, $4 / 1000 }'
echo
echo "   Error returns by errno (stats' errors lines):"
printf '\n   %-24s %-8s %6s\n' "function" "errno" "count"
awk '$1 == "set" { show = ($2 == "lat") } show && $1 == "errors"' "$BP_DEBUGFS/stats" |
    awk '{ for (i = 4; i <= NF; i++) { split($i, kv, "="); if (kv[1] != "other" && kv[2] > 0) printf "   %-24s %-8s %6d\n", $2, kv[1], kv[2] } }' |
    sort -k3,3nr
n_err=$(awk '$1 == "set" { show = ($2 == "lat") } show && $1 == "errors"' "$BP_DEBUGFS/stats" | grep -c ENOENT)
[ "$n_err" -ge 1 ] || { echo "demo: no function of set lat counted an ENOENT"; exit 1; }
echo "   (durations are under QEMU TCG: compare them with each other, not with hardware)"
bp_ctl 'unregister calls\nunregister lat\nflush\n'
bp_wait_unpinned || { echo "demo: a task stayed inside an exit-traced function"; exit 1; }
rmmod batchprobe
echo
echo "== done: batchprobe unloaded"
dmesg -n 7
