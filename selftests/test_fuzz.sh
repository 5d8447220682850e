#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: 3,000 seeded valid, near-valid and junk batches; the kernel's view agrees after
# requires: CONFIG_KPROBES, CONFIG_FPROBE, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
# speed: slow
#
# bpfuzz (selftests/bptool.c) writes BP_FUZZ_BATCHES (3,000) batches from
# seed BP_FUZZ_SEED: whole sets built and then enabled, disabled, retargeted
# and retired; kprobe, kretprobe and direct lines (p: and r: served by
# fprobes where ftrace can trace the function, p!: and r!: by kprobes) on
# real, missing and blacklisted symbols and globs, offsets past a
# function's end, huge counts, every command and option, junk bytes with
# NULs, over-long lines, UTF-8, and writes cut short anywhere; sets made
# with --events have their events turned on as they appear (records
# written while probes fire, sets retired with events on). bp_foreign.ko is
# loaded and unloaded meanwhile, its function called while it is loaded:
# the fuzzed MOD:SYM lines on it wait, are registered when it comes (the
# module notifier), go when it goes, and come back; its d: lines' sets
# hold it loaded while they live (its unloads fail meanwhile). Afterwards
# batchprobe's own listing agrees with the kernel's (kprobes/list,
# enabled_functions), and unregistering every set leaves neither with
# anything of ours (no fprobe, and no event once they are off, either).
. ./bp_lib.sh
ktap_plan 13
T=/sys/kernel/tracing
# 3,000 batches (make check's size: six flavors under TCG on two cores must
# fit CI's 90 minutes; BP_FUZZ_BATCHES=10000 in the guest for a longer run);
# 1,000 under KASAN (the debug kernels, with kmemleak), where each costs
# several times more, and on a distribution's kernel (Debian's 7.3 image:
# about 125,000 text symbols, several times ours), which walks them all for
# every glob and unknown name: 4 batches a second under TCG there.
default=3000
[ -e /sys/kernel/debug/kmemleak ] && default=1000
[ "$(grep -c ' [tT] ' /proc/kallsyms)" -gt 100000 ] && default=1000
seed=${BP_FUZZ_SEED:-1} batches=${BP_FUZZ_BATCHES:-$default}
kp_base=$(kprobes_registered) d_base=$(direct_attached)

bp_load
ef0=$(ftrace_enabled)
black=$(grep -v "^$" /sys/kernel/debug/kprobes/blacklist | awk '{print $2}' | grep -v '\.' | head -1)
t0=$(cut -d' ' -f1 /proc/uptime)
# Every event of a fuzzed set on, as they come (--events), into a ring
# buffer that takes records (an earlier test may have left tracing off).
echo 1 > $T/tracing_on
echo > $T/trace
rm -f /tmp/fuzz-stop /tmp/fuzz-most
(while [ ! -e /tmp/fuzz-stop ]; do
    for f in $T/events/s[0-9]/enable; do [ -e "$f" ] && echo 1 > "$f" 2>/dev/null; done
    # The most records the ring buffer held at once (a retired set's
    # events empty it): that records were written.
    n=$(cat $T/per_cpu/cpu*/stats | awk '/^entries:/ { n += $2 } END { print n + 0 }')
    [ "$n" -gt "$(cat /tmp/fuzz-most 2>/dev/null || echo 0)" ] && echo "$n" > /tmp/fuzz-most
    sleep 1
done) &
enabler=$!
rm -f /tmp/fuzz-loads
(n=0; while [ ! -e /tmp/fuzz-stop ]; do
    if insmod "$BP_FOREIGN" 2>/dev/null; then n=$((n + 1)); echo $n > /tmp/fuzz-loads; fi
    sleep 1
    echo 3 > /sys/module/bp_foreign/parameters/poke 2>/dev/null
    rmmod bp_foreign 2>/dev/null
    sleep 1
done) &
loader=$!
res=$(bpfuzz $BP_CTL "$seed" "$batches" "$black")
touch /tmp/fuzz-stop
wait $enabler $loader
rmmod bp_foreign 2>/dev/null
rm -f /tmp/fuzz-stop
for f in $T/events/s[0-9]/enable; do [ -e "$f" ] && echo 0 > "$f"; done
# (Counted from the ring buffer's statistics: formatting a whole buffer
# through `trace` takes minutes under TCG.)
echo "# event groups of fuzzed sets: $(ls -d $T/events/s[0-9] 2>/dev/null | wc -l); entries in the ring buffer: $(cat $T/per_cpu/cpu*/stats | awk '/^entries:/ { n += $2 } END { print n + 0 }'), at most during the fuzz: $(cat /tmp/fuzz-most 2>/dev/null || echo 0)"
echo "# seed $seed: $batches batches, $res (accepted refused), $(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { print b - a }') s"
ktap_check "every_batch_answered" test "$(echo $res | awk '{ print $1 + $2 }')" -eq "$batches"
# The work happened: batches were taken and batches refused (the fuzzer
# writes both kinds), and probes wrote records while their events were on.
ktap_check "batches_taken_and_refused" test "$(echo $res | awk '{ print ($1 > 0 && $2 > 0) }')" = 1
ktap_check "records_written" test "$(cat /tmp/fuzz-most 2>/dev/null || echo 0)" -gt 0
echo "# bp_foreign loaded $(cat /tmp/fuzz-loads 2>/dev/null || echo 0) time(s) during the fuzz; waiting probes: $(bp_live_sum waiting), gone: $(bp_live_sum gone)"
ktap_check "module_loaded_meanwhile" test "$(cat /tmp/fuzz-loads 2>/dev/null || echo 0)" -gt 0
bp_ctl 'flush\n'
# Ours as the module lists them: live sets' kprobes and kretprobes, plus the
# grace-period counters (one kprobe per kind this kernel has).
echo "# live sets: $(bp_live_sets | wc -l); kprobes $(bp_live_sum kprobes), kretprobes $(bp_live_sum kretprobes) ($(bp_live_sum waiting) waiting for a module), fprobes $(bp_live_sum fprobes), fretprobes $(bp_live_sum fretprobes), direct $(bp_live_sum direct)"
ktap_check "kprobes_agree_with_kernel" bp_agrees_kprobes "$kp_base"
ktap_check "direct_calls_agree_with_ftrace" bp_agrees_direct "$d_base"
ktap_check "unregister_everything" bp_unregister_all
# A set's d: lines on bp_foreign held it loaded: now it may go.
rmmod bp_foreign 2>/dev/null
ktap_check "only_the_counters_left" bp_agrees_kprobes "$kp_base"
ktap_check "no_direct_call_left" test "$(direct_attached)" -eq "$d_base"
ktap_check "no_fprobe_or_ftrace_user_left" test "$(ftrace_enabled)" = "$ef0"
ktap_check "rmmod" rmmod batchprobe
ktap_check "no_event_left" test -z "$(ls -d $T/events/s[0-9] $T/events/batchprobe 2>/dev/null)"
ktap_finish
