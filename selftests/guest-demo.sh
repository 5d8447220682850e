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
#  4. `batchprobe latency --errors` on a few file-system entry points
#     over a short workload: the slowest functions by p99, a histogram
#     and the error returns by errno (an exit set, made and removed by the
#     command).
#  5. `batchprobe trace --exit` on one line with fetch arguments: a few of
#     its return records (the arguments, the return value, the duration).
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
echo "== 4. Where the time and the errors went: batchprobe latency --errors"
# The batchprobe command (tools/batchprobe, installed by make install): an
# exit set with --hist --errors on a few file-system entry points, made
# when it starts and removed at Ctrl-C (here SIGINT after a short
# workload). Functions none blocks in for long (a task left inside a body
# keeps the module pinned: rmmod waits for it below).
PATS="*_sys_openat do_*open* *mkdirat vfs_stat* vfs_getattr* *_sys_ppoll"
echo "   \$ batchprobe latency --errors --top 8 --hists 1 $(for p in $PATS; do printf "'%s' " "$p"; done)"
# shellcheck disable=SC2086
# (The files exist before the command does: the loop below reads one.
# bpfg: SIGINT at its default, as for a terminal's foreground job: a
# shell's background job has it ignored, and batchprobe keeps it so.)
: > /tmp/lat.out; : > /tmp/lat.err
bpfg batchprobe latency --errors --top 8 --hists 1 $PATS > /tmp/lat.out 2> /tmp/lat.err &
lat=$!
i=200
until grep -q '^Tracing' /tmp/lat.err || [ $i -eq 0 ] || ! kill -0 $lat 2>/dev/null; do usleep 100000; i=$((i - 1)); done
sed 's/^/   /' /tmp/lat.err
echo "   (a workload: two 20-ms sleeps, 5 opens of a missing file, 5 of /proc/version,"
echo "   3 mkdir of /, ls -l /proc, stat of a missing file; then Ctrl-C)"
bpsleep 20; bpsleep 20
bpopen /no/such/file 5 > /dev/null
bpopen /proc/version 5 > /dev/null
bpmkdir / 3 > /dev/null
ls -l /proc > /dev/null
stat /no/such/file > /dev/null 2>&1
kill -INT $lat
wait $lat || { echo "demo: batchprobe latency failed"; cat /tmp/lat.err; exit 1; }
sed 's/^/   /' /tmp/lat.out
grep -q ' ENOENT ' /tmp/lat.out || { echo "demo: no function counted an ENOENT"; exit 1; }
echo "   (durations are under QEMU TCG: compare them with each other, not with hardware)"

echo
echo "== 5. Return records with arguments, the return value and the duration: batchprobe trace"
L='d:lat/opens do_sys_openat2 $arg1 filename:ustring ret=$retval'
echo "   \$ batchprobe trace --exit '$L'"
: > /tmp/tr.out; : > /tmp/tr.err
bpfg batchprobe trace --exit "$L" > /tmp/tr.out 2> /tmp/tr.err &
tr=$!
i=200
until grep -q '^Tracing' /tmp/tr.err || [ $i -eq 0 ] || ! kill -0 $tr 2>/dev/null; do usleep 100000; i=$((i - 1)); done
sed 's/^/   /' /tmp/tr.err
bpopen /no/such/file 2 > /dev/null
bpopen /proc/version 1 > /dev/null
sleep 1
kill -INT $tr
wait $tr || { echo "demo: batchprobe trace failed"; cat /tmp/tr.err; exit 1; }
grep -m 3 bpopen /tmp/tr.out | sed 's/^ */   /'
grep -q 'duration=' /tmp/tr.out || { echo "demo: no return record"; exit 1; }
bp_ctl 'unregister calls\nflush\n'
bp_wait_unpinned || { echo "demo: a task stayed inside an exit-traced function"; exit 1; }
rmmod batchprobe
echo
echo "== done: batchprobe unloaded"
dmesg -n 7
