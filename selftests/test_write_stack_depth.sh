#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a control write's deepest kernel stack, as the kernel's stack tracer measures it, stays within three quarters of the task stack while it sorts thousands of names: the kprobes blacklist's with addresses hidden, a create's lines and its events', a glob's fprobe addresses
# requires: CONFIG_STACK_TRACER, CONFIG_KPROBE_EVENTS, CONFIG_FPROBE, /sys/kernel/debug/kprobes/blacklist
# speed: slow on stock-7.3
#
# A control write runs on the writer's task stack (16 KiB on x86-64, twice
# that under KASAN), under a chain of the module's frames. `core`'s
# sort_unstable recursed with a scratch array in each frame: sorting the
# blacklist's names (kptr_restrict=2) from a create ran off Debian's 7.3
# image's stack into its guard page (CI of f7ae6ed). The stack tracer
# (ftrace's, on every function) records the deepest task stack it sees at
# a function's entry and the trace that reached it. A quiet guest's
# writer is the only busy task: the deepest trace is a write's (it is
# printed, with the module's frames on it), and it must stay within three
# quarters of THREAD_SIZE, which leaves the last 4 KiB (8 under KASAN) to
# what the kernel may run below a write (reclaim from an allocation, an
# interrupt's entry) and to what the tracer cannot see (the innermost
# frames' own locals). Measured on 2026-12-08 (TCG): 7,352 bytes on
# distro-7.3, 7,952 on test, 11,336 on Debian's image, whose deepest write
# reads kprobes' blacklist file under five frames of the module's of
# 1-2.3 KiB each (bp_rust_control_write, Engine::execute, set::build::fill,
# Builder::add, FprobeSet::add: 7.2 KiB together). The old sort added
# about 900 bytes a level there, and overflowed (14,344 bytes here with
# f7ae6ed's module, and the guard page in CI). A run's figure moves by up
# to 1 KiB: do_syscall_64's frame holds the kernel's random stack offset
# (randomize_kstack_offset; 1,032 bytes in that run, 792 in CI's 10,600),
# so Debian's image stays about 900 bytes within the limit at the most.
. ./bp_lib.sh
T=/sys/kernel/tracing
BL=/sys/kernel/debug/kprobes/blacklist
ktap_plan 9
if grep -q ' kasan_report$' /proc/kallsyms; then thread_size=32768; else thread_size=16384; fi
limit=$((thread_size * 3 / 4))
# Lines of one create: 4,000 functions (1,000 under kmemleak's debug
# kernels, 3-4x slower under TCG, with the tracer on every call).
n=4000
[ -e /sys/kernel/debug/kmemleak ] && n=1000

# A function kprobes blacklist, that ftrace traces and one text symbol
# names: its p: line is judged against the blacklist's names when the
# addresses are hidden.
tmp=/tmp/bp-wstack
mkdir -p $tmp
awk 'NF == 1' $T/available_filter_functions | sort -u > $tmp/traceable
awk 'NF == 3 && ($2 == "t" || $2 == "T") { n[$3]++ } END { for (s in n) if (n[s] > 1) print s }' \
    /proc/kallsyms > $tmp/twice
echo "#" >> $tmp/twice   # never empty: awk reads the list first
black=$(awk 'NF == 2 { print $2 }' $BL | sort -u | awk -v t=$tmp/traceable -v d=$tmp/twice '
    BEGIN { while ((getline l < t) > 0) ok[l] = 1; while ((getline l < d) > 0) twice[l] = 1 }
    ($1 in ok) && !($1 in twice) && $1 !~ /\./ { print $1; exit }')
# The create's functions: traceable, not blacklisted, one symbol each,
# names an event takes (48 bytes at most).
grep -v -e '\.' $tmp/traceable | bp_unblacklisted |
    awk 'NR == FNR { twice[$1] = 1; next } length($0) <= 48 && !($1 in twice)' $tmp/twice - |
    head -"$n" > $tmp/funcs
echo "# $(wc -l < $tmp/funcs) functions for the create; blacklisted and traceable: ${black:-none};" \
    "THREAD_SIZE $thread_size, limit $limit"

# The deepest trace: "DEPTH SIZE LOCATION" per frame, innermost first.
deepest() {
    awk '$1 ~ /^[0-9]+\)$/ && NF >= 4 { print $2, $3, $4, $5 }' $T/stack_trace
}

# Made before the tracer is on: while it is, the writes are the only work.
sed 's|^|p:wse/ |' $tmp/funcs > $tmp/create
printf 'create wse --events\n' >> $tmp/create

bp_load
echo 1 > /proc/sys/kernel/stack_tracer_enabled
echo 0 > $T/stack_max_size
if [ -n "$black" ]; then
    old=$(cat /proc/sys/kernel/kptr_restrict)
    echo 2 > /proc/sys/kernel/kptr_restrict
    bp_expect_err "blacklisted_refused_addresses_hidden" 22 "p:wsb/c $black\ncreate wsb\n"
    echo "$old" > /proc/sys/kernel/kptr_restrict
else
    ktap_skip "blacklisted_refused_addresses_hidden" "no function both blacklisted and ftrace-able on this kernel"
fi
# One write: every line, a create with an event each, then a glob's
# fprobe set (its addresses sorted) without events.
bp_ctl_file "create_with_events" $tmp/create
ktap_check "glob_create" bp_ctl 'p:wsg/ vfs_*\ncreate wsg --no-events\n'
ktap_check "unregister" bp_ctl 'unregister wse --sync\nunregister wsg --sync\n'
echo 0 > /proc/sys/kernel/stack_tracer_enabled
depth=$(cat $T/stack_max_size)
deepest > $tmp/deepest
ours=$(grep -c '\[batchprobe\]' $tmp/deepest)
echo "# stack_max_size=$depth (limit $limit); $(wc -l < $tmp/deepest) frames on the deepest trace, $ours of batchprobe's; the module's and the write's:"
grep -e '\[batchprobe\]' -e 'vfs_write\|ksys_write\|do_syscall' $tmp/deepest | sed 's/^/#   /'
ktap_check "stack_tracer_measured" test "${depth:-0}" -gt 0 -a -s $tmp/deepest
ktap_check "deepest_is_a_write" test "$ours" -gt 0
ktap_check "within_three_quarters_of_the_stack" test "$depth" -le "$limit"
ktap_check "rmmod" rmmod batchprobe
ktap_finish
