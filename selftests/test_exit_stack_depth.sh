#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: an exit set on every eligible function deepens the deepest kernel stack by the exit trampoline's frame per nested exit-traced call, and no more
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF, CONFIG_STACK_TRACER, CONFIG_UNWINDER_ORC
# speed: slow
#
# The exit trampoline keeps a frame on the stack for the whole body of each
# exit-traced call (rust/trampolines.c): a call nested inside k exit-traced
# calls runs k frames deeper. The stack tracer (ftrace's, on every
# function) records the deepest task stack it sees at a function's entry
# and the trace that reached it. The same workload runs without a set
# (twice: how much two runs differ) and with one exit set on every
# function the exit trampoline takes, as the exit benchmark has it (a `d:`
# glob with --exit; below, the two functions left out and why); the test
# prints the depths, their difference and the exit-traced frames on the
# deepest trace (docs/exit-trampoline.md, "Stack depth", collects the
# figures), and checks:
# - the set was on the measured path (the deepest trace holds exit frames);
# - those frames are the trampoline's: its return address and the traced
#   function's fentry return address lie EXIT_FRAME bytes below the
#   caller's return address (most of them exactly: below);
# - the growth is those frames and nothing else: with - without (the
#   deeper run) is at most EXIT_FRAME x the exit frames on the deepest
#   trace, plus SLACK;
# - a deep path (deep_path) grown in the proportion the deepest path
#   measured here grew, plus the trampoline's transient frames (TRANSIENT),
#   still fits in THREAD_SIZE: the 80-byte frame the trampoline kept
#   before fails this on test (5672 bytes with, 2952 of them without the
#   frames: 21.1 KiB).
# The workload is what an initramfs guest runs deep without a network or a
# block device: exec of a static binary and of a script through pipes,
# tmpfs writes and reads, a tmpfs mount, procfs and sysfs walks, signals,
# a module load and unload; three rounds each time.
. ./bp_lib.sh
T=/sys/kernel/tracing
# Under KASAN and TCG an exit set on every function with the stack tracer
# beside it outran the runner's 900 s (debug-7.3, 2026-12-03: killed while
# attaching, which left the module loaded for every later program), so the
# KASAN flavors are left out, saying so; test, distro, distro-7.3 and
# Debian's image measure it.
grep -q ' kasan_report$' /proc/kallsyms &&
    bp_skip_all "address sanitizer (kasan_report) under TCG: an exit set on every function and the stack tracer outrun the 900-s budget"
ktap_plan 10

# The trampoline's frame for the whole body: the fentry return address,
# the token and the return address into the trampoline; 8 bytes more for
# each argument register kept for return records that read $argN
# (BP_STACK_KEEP=K: the set's lines read $argK, so its trampoline is
# bp_direct_tramp_exit_argsK; test_exit_stack_depth_args.sh).
KEEP=${BP_STACK_KEEP:-0}
EXIT_FRAME=$((24 + 8 * KEEP))
if [ "$KEEP" -gt 0 ]; then TRAMP=bp_direct_tramp_exit_args$KEEP ARGS=" \$arg$KEEP"; else TRAMP=bp_direct_tramp_exit ARGS=; fi
# How much deeper than the deeper run without the set the path measured
# with it may be before its exit frames: the deepest path is not always
# the same one (two runs without a set differed by 24 bytes on test). A
# preemptible kernel can schedule at any point, so the deepest trace may
# carry a scheduler path the runs without the set did not hit, and ftrace's
# list function where the stack tracer and the set share a function (on
# distro-7.3: 312 bytes past the runs without, 2026-12-03).
case "$(uname -v)" in
*PREEMPT*) SLACK=1024 ;;
*) SLACK=256 ;;
esac
# THREAD_SIZE: 16 KiB on x86-64, twice that under KASAN.
if grep -q ' kasan_report$' /proc/kallsyms; then thread_size=32768; else thread_size=16384; fi
# A deep kernel path, as real systems run them (block, filesystem and
# network stacks: 8-11 KiB of the 16 KiB, docs/exit-trampoline.md), which
# this guest cannot run: 11 KiB, scaled with THREAD_SIZE (KASAN's frames
# are bigger).
deep_path=$((thread_size * 11 / 16))
# What the stack tracer cannot see: the trampoline's frames at the
# innermost call (the saved registers and rbp, 64 bytes, and the entry
# handler's frame, 176 bytes on test, and its callees'), and no more than
# the entry-only trampolines' own.
TRANSIENT=512

now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

workload() {
    mkdir -p /tmp/bp-stack-mnt
    printf '#!/bin/sh\n/bin/busybox true\n' > /tmp/bp-stack.sh
    chmod +x /tmp/bp-stack.sh
    for _ in 1 2 3; do
        # exec of the static busybox, with a pipe between two; a script,
        # whose interpreter is exec'd from inside the first exec.
        /bin/busybox echo deep | /bin/busybox cat > /dev/null
        /tmp/bp-stack.sh
        # tmpfs: write, read back, and a mount of its own.
        dd if=/dev/zero of=/tmp/bp-stack.f bs=64k count=16 2> /dev/null
        /bin/busybox md5sum /tmp/bp-stack.f > /dev/null
        mount -t tmpfs bpstack /tmp/bp-stack-mnt &&
            { cp /tmp/bp-stack.f /tmp/bp-stack-mnt/f; umount /tmp/bp-stack-mnt; }
        rm -f /tmp/bp-stack.f
        # procfs and sysfs (kernfs): lookups, reads, a directory walk.
        cat /proc/self/maps /proc/self/status /proc/meminfo /proc/modules > /dev/null
        find /sys/kernel/mm /sys/module/batchprobe /proc/self/ > /dev/null 2>&1
        # Signals: one handled by a shell, a child killed.
        sh -c 'trap "exit 0" USR1; kill -USR1 $$; sleep 5'
        sleep 10 &
        kill -TERM $!
        wait $! 2> /dev/null
        # A module load and unload.
        if [ -f "$BP_FOREIGN" ]; then insmod "$BP_FOREIGN" && rmmod bp_foreign; fi
    done
    rm -f /tmp/bp-stack.sh
}

# The deepest trace: "DEPTH SIZE LOCATION" per frame, innermost first.
deepest() {
    awk '$1 ~ /^[0-9]+\)$/ && NF >= 4 { print $2, $3, $4 }' $T/stack_trace
}
# measure NAME: resets the maximum, runs the workload, prints the depth.
measure() {
    echo 0 > $T/stack_max_size
    t=$(now)
    workload
    depth=$(cat $T/stack_max_size)
    deepest > "/tmp/bp-stack-$1"
    echo "# $1: stack_max_size=$depth, $(wc -l < "/tmp/bp-stack-$1") frames on the deepest trace, workload $(since "$t") s" >&2
    sed 's/^/#   /' "/tmp/bp-stack-$1" >&2
    echo "$depth"
}

bp_load
t=$(now)
echo 1 > /proc/sys/kernel/stack_tracer_enabled
echo "# stack tracer on in $(since "$t") s; THREAD_SIZE $thread_size"
without=$(measure without)
ktap_check "stack_tracer_measured" test "${without:-0}" -gt 0 -a -s /tmp/bp-stack-without
# Again without: how far two runs of the same workload differ.
again=$(measure again)
t=$(now)
# Every function the exit trampoline takes, but x64_sys_call (as the
# exit benchmark: the shells above would sleep in wait4 through it) and
# schedule*: a kernel thread that goes idle in schedule() while the set is
# attached stays inside until its next work item, minutes later or never
# (kworker/0:0 and rcu_exp_gp_kthread_worker on test), and keeps the
# module from unloading. Two lines, one skip= each.
ktap_check "exit_set_on_every_eligible_function" \
    bp_ctl "d:xs/ [!x]* skip=schedule*$ARGS\nd:xs/ x* skip=x64_sys_call$ARGS\ncreate xs --exit\nenable xs\n"
n=$(bp_field xs direct)
echo "# exit set: $n functions ($(bp_field xs skipped) skipped), attached in $(since "$t") s"
# The deepest path is not always one the set traces: on a preemptible
# kernel a timer interrupt can land on a path through functions the set
# leaves out (more than six arguments, a struct by value) and outgrow the
# exit-traced ones (CI on distro-7.3, 2026-12-04: no exit frame on the
# deepest trace, which passes in most runs). Such a run measures nothing
# about the trampoline: it is measured again, up to three runs, saying so.
# An exit frame is the body's return address into the trampoline
# (bp_direct_tramp_exit+OFF, OFF past the call: never +0x0). A timer
# interrupt taken as ftrace_regs_caller jumps to the trampoline leaves its
# start on the stack instead (+0x0, under ftrace_regs_caller_end: CI on
# distro-7.3, 2026-12-04, the deepest trace): no frame of the trampoline's.
EXIT_RA="$TRAMP+0x[1-9a-f]"
for try in 1 2 3; do
    with=$(measure with)
    grep -q "$EXIT_RA" /tmp/bp-stack-with && break
    echo "# run $try with the set: no exit-traced call on the deepest trace; measuring again"
done
ktap_check "exit_calls_counted" test "$(bp_field xs hits)" -gt 0
t=$(now)
ktap_check "unregister" bp_ctl 'unregister xs --sync\n'
echo 0 > /proc/sys/kernel/stack_tracer_enabled
echo "# detached and stack tracer off in $(since "$t") s"

# The exit frames on the deepest trace: each "bp_direct_tramp_exit" entry
# (the body's return address into the trampoline) and the one after it
# (the traced function's fentry return address): their sizes add up to
# the trampoline's frame, up to the caller's return address.
frames=$(grep -c "$EXIT_RA" /tmp/bp-stack-with)
sizes=$(awk -v ra="^$TRAMP[+]0x[1-9a-f]" '$3 ~ ra { s = $2; getline; printf "%d ", s + $2 }' /tmp/bp-stack-with)
exact=$(echo "$sizes" | tr ' ' '\n' | grep -cx "$EXIT_FRAME")
# Without the set: the deeper of the two runs.
base=$without
[ "$again" -gt "$base" ] && base=$again
added=$((with - base))
echo "# stack_max_size without=$base with=$with added=$added exit_frames_on_deepest=$frames" \
    "exit_frame_bytes=$EXIT_FRAME estimated=$((EXIT_FRAME * frames)) runs_without=$without,$again" \
    "slack=$SLACK thread_size=$thread_size"
echo "# exit frames on the deepest trace, bytes each: $sizes"
ktap_check "exit_frames_on_the_deepest_trace" test "$frames" -gt 0
# Most of them exactly: the tracer finds each return address by scanning
# the stack upwards, and a stale copy of the trampoline's return address
# (an earlier exit-traced call's, left in a body's locals) would shift
# one frame's share into its neighbour's.
ktap_check "exit_frames_are_${EXIT_FRAME}_bytes" test "$((exact * 2))" -gt "$frames"
ktap_check "growth_is_the_exit_frames" test "$added" -le $((EXIT_FRAME * frames + SLACK))
# The same growth on a deep path: the deepest path measured with the set
# ran (with - the exit frames) bytes deep without them; a deep path with
# as many exit-traced frames per byte would grow in the same proportion.
# It must fit the stack with the trampoline's transient frames on top.
own=$((with - EXIT_FRAME * frames))
[ "$own" -gt 0 ] || own=1
projected=$((deep_path * with / own))
echo "# a ${deep_path}-byte path with as many exit-traced frames per byte: $projected bytes" \
    "+ $TRANSIENT transient, of $thread_size"
ktap_check "deep_path_fits_the_stack" test $((projected + TRANSIENT)) -lt "$thread_size"
# The pin drops after an RCU-tasks grace period once no task is inside
# (a poll backing off to 5 s): slow under KASAN and TCG.
bp_wait_unpinned 120
if [ "$(cat /sys/module/batchprobe/refcnt)" -ne 0 ]; then
    echo "# still pinned: $(head -1 $BP_DEBUGFS/stats)"
    for p in /proc/[0-9]*; do
        grep -q bp_direct_tramp_exit "$p/stack" 2> /dev/null || continue
        echo "# inside: ${p#/proc/} $(cat "$p/comm"):" $(sed 's/^\[<[^>]*>\] //; s/+.*//' "$p/stack")
    done
fi
ktap_check "rmmod" rmmod batchprobe
ktap_finish
