#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: events on thousands of probes, hit from every CPU while a reader drains trace_pipe and sets with events on are retired, then unload with trace_pipe open
# requires: CONFIG_KPROBE_EVENTS, CONFIG_FPROBE
# speed: slow
#
# A set of 4096 probes (1024 on the debug kernels) on functions ftrace can
# trace, every one with its event on and fetch arguments (the first
# argument, the task's name as a string), plus getppid's own probe, hit by
# one task per CPU, while `cat trace_pipe` drains the ring buffer and a
# writer creates small sets with events, turns their events on, and retires
# them with the events still on (their events stay until they are off),
# for BP_EVENTS_LOAD_S (10) seconds. Then, with only getppid's event on,
# its records are its hits, unless the ring buffer overran (then no more
# than them, and the overrun is the kernel's count); every event of the big set goes at its retirement
# and the module unloads while a reader still has trace_pipe open; no
# warning from the kernel. The times to create and retire the set are
# printed (TCG: compare them with each other only).
. ./bp_lib.sh
ktap_plan 13
T=/sys/kernel/tracing
secs=${BP_EVENTS_LOAD_S:-10}
n=$(bp_sized 4096)
S=$BP_GETPPID
w0=$(bp_kernel_warnings)

echo 0 > $T/tracing_on
echo > $T/trace
bp_load
# Functions ftrace can trace (fprobes): a glob such as * would also put
# int3 kprobes on ftrace's and the entry code's own labels.
grep -v -e lock -e '\.' -e ' ' $T/available_filter_functions | sort -u | bp_unblacklisted | head -"$n" |
    sed 's|^\(.*\)$|p:ld/ \1 a=$arg1:x64 c=$comm:string|' > /tmp/evload.lines
printf 'p:ld/getppid %s c=$comm:string s=+0($stack):x64\ncreate ld --events\nenable ld\n' "$S" >> /tmp/evload.lines
ktap_check "create_with_events" sh -c ". ./bp_lib.sh; bpwrite $BP_CTL < /tmp/evload.lines"
probes=$(bp_set_probes ld)
events=$(ls -d $T/events/ld/*/ | wc -l)
echo "# set ld: $probes probes, $events events; register took $(bp_timing ld register_ns) ns"
ktap_check "an_event_per_probe" test "$events" -eq "$probes"

echo 1 > $T/events/ld/enable
echo 1 > $T/tracing_on
rm -f /tmp/evload-stop
cat $T/trace_pipe > /dev/null &
reader=$!
for c in $(seq 1 "$(grep -c ^processor /proc/cpuinfo)"); do
    (while [ ! -e /tmp/evload-stop ]; do cat /proc/version > /dev/null; bphit 50 > /dev/null; done) &
done
# The writer: small sets whose events are on when they retire.
(
    i=0 made=0 retired=0
    while [ ! -e /tmp/evload-stop ]; do
        i=$((i + 1))
        bp_ctl "p:w$i/ ${BP_SYS}get* max=8 c=\$comm:string\nr:w$i/ret $S \$retval\ncreate w$i --events\nenable w$i\n" 2>/dev/null || continue
        made=$((made + 1))
        echo 1 > $T/events/w$i/enable
        bp_ctl "unregister w$i\n" 2>/dev/null && retired=$((retired + 1))
        [ $((i % 4)) -eq 0 ] && echo 0 > $T/events/w$i/enable 2>/dev/null
    done
    echo "$i $made $retired" > /tmp/evload.writer
) &
sleep "$secs"
touch /tmp/evload-stop
wait_for() { _i=0; while [ ! -s "$1" ] && [ $_i -lt 300 ]; do sleep 1; _i=$((_i + 1)); done; }
wait_for /tmp/evload.writer
sleep 2
read -r tries made retired < /tmp/evload.writer
echo "# writer: $made sets made and $retired retired with their events on, of $tries tries"
ktap_check "writer_made_and_retired_sets" sh -c "test '${made:-0}' -ge 1 && test '${retired:-0}' -eq '${made:-0}'"
ktap_check "flush" bp_ctl 'flush\n'

# Exactly getppid's calls, with only its event on and the reader stopped:
# as many records as hits, unless the ring buffer overran (the kernel's
# count), and never more.
kill $reader 2>/dev/null
wait $reader 2>/dev/null
echo 0 > $T/events/ld/enable
echo 1 > $T/events/ld/getppid/enable
echo > $T/trace
overrun() { cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { n += $2 } END { print n + 0 }'; }
o0=$(overrun) h0=$(bp_probe_hits ld getppid)
bphit 500 > /dev/null
h1=$(bp_probe_hits ld getppid)
o1=$(overrun)
echo 0 > $T/tracing_on
hits=$((h1 - h0)) recs=$(grep -c ' getppid: (' $T/trace)
echo "# getppid, 500 calls: $hits hits, $recs records; overrun $o0 -> $o1"
ktap_check "hits_counted" test "$hits" -eq 500
if [ "$o1" -eq "$o0" ]; then
    ktap_check "records_are_hits" test "$recs" -eq "$hits"
else
    ktap_check "records_no_more_than_hits" test "$recs" -le "$hits"
fi
# Retire the big set with its events on: they stay until off; then go.
ktap_check "retire_with_events_on" bp_ctl 'unregister ld --sync\n'
echo "# retired: teardown took $(bp_timing ld teardown_ns) ns"
ktap_check "events_kept_while_on" test -d $T/events/ld/getppid
echo 0 > $T/events/enable
for d in $T/events/w*/; do [ -d "$d" ] && echo 0 > "$d/enable"; done
ktap_check "next_sync_removes_them" bp_ctl "p:last/ $S\ncreate last --events\nunregister last --sync\n"
ktap_check "big_set_events_gone" test ! -d $T/events/ld
# Unload with a reader on trace_pipe.
echo 1 > $T/tracing_on
cat $T/trace_pipe > /dev/null &
reader=$!
sleep 1
ktap_check "rmmod_with_trace_pipe_open" rmmod batchprobe
kill $reader 2>/dev/null
wait $reader 2>/dev/null
ktap_check "no_kernel_warning" bp_no_new_warnings "$w0"
echo 1 > $T/tracing_on
rm -f /tmp/evload*
ktap_finish
