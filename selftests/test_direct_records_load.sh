#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: return records from an exit set of 1000 functions, hit from every CPU while a reader drains trace_pipe and direct sets with records are retired, then unload with trace_pipe open
# requires: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF
# speed: slow
#
# One exit set of getppid and the first 1000 other functions the exit
# trampoline takes (250 on the debug kernels), made with --events: every
# function writes a return record per call ($retval, its first argument
# kept at entry: the trampoline that keeps the argument registers; the
# duration; getppid's $retval and $comm), all of them on, hit by
# one task per CPU, while `cat trace_pipe` drains the ring buffer and a
# writer creates small direct sets of entry records, turns their events
# on, and retires them with the events on, for BP_EVENTS_LOAD_S (10)
# seconds. Then, with only getppid's event on, its records are its returns
# (no more, if the ring buffer overran); the big set retires with its
# events on (they stay until off, then go) and the module unloads while a
# reader still has trace_pipe open; no warning from the kernel.
. ./bp_lib.sh
ktap_plan 12
T=/sys/kernel/tracing
secs=${BP_EVENTS_LOAD_S:-10}
n=$(bp_sized 1000)
S=$BP_GETPPID
w0=$(bp_kernel_warnings)

echo 0 > $T/tracing_on
echo > $T/trace
bp_load
# As test_direct_exit_hist_life.sh: not x64_sys_call (the shells wait in
# wait4 through it, keeping the pin).
ktap_check "create_exit_set_with_events" bp_ctl "d:dl/getppid $S c=\$comm:string r=\$retval\nd:dl/ * max=$n skip=x64_sys_call r=\$retval:x64 a=\$arg1:x64\ncreate dl --exit --events\nenable dl\n"
fns=$(bp_field dl direct)
events=$(ls -d $T/events/dl/*/ | wc -l)
echo "# set dl: $fns functions, $events events; register took $(bp_timing dl register_ns) ns"
ktap_check "an_event_per_function" test "$events" -eq "$fns"

echo 1 > $T/events/dl/enable
echo 1 > $T/tracing_on
rm -f /tmp/drload-stop
cat $T/trace_pipe > /dev/null &
reader=$!
for c in $(seq 1 "$(grep -c ^processor /proc/cpuinfo)"); do
    (while [ ! -e /tmp/drload-stop ]; do cat /proc/version > /dev/null; bphit 50 > /dev/null; done) &
done
# The writer: small direct sets of entry records, retired with them on.
(
    i=0
    while [ ! -e /tmp/drload-stop ]; do
        i=$((i + 1))
        bp_ctl "d:w$i/ ${BP_SYS}getu* c=\$comm:string\ncreate w$i --events\nenable w$i\n" 2>/dev/null || continue
        echo 1 > $T/events/w$i/enable
        bp_ctl "unregister w$i\n" 2>/dev/null
        [ $((i % 4)) -eq 0 ] && echo 0 > $T/events/w$i/enable 2>/dev/null
    done
    echo "$i" > /tmp/drload.writer
) &
sleep "$secs"
touch /tmp/drload-stop
wait_for() { _i=0; while [ ! -s "$1" ] && [ $_i -lt 300 ]; do sleep 1; _i=$((_i + 1)); done; }
wait_for /tmp/drload.writer
sleep 2
echo "# writer: $(cat /tmp/drload.writer) sets made and retired with their events on"
ktap_check "flush" bp_ctl 'flush\n'

# Exactly getppid's returns, with only its event on and the reader
# stopped: as many records as returns, unless the ring buffer overran.
kill $reader 2>/dev/null
wait $reader 2>/dev/null
echo 0 > $T/events/dl/enable
echo 1 > $T/events/dl/getppid/enable
echo > $T/trace
overrun() { cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { n += $2 } END { print n + 0 }'; }
o0=$(overrun) x0=$(bp_exit_field dl getppid exits)
bphit 500 > /dev/null
x1=$(bp_exit_field dl getppid exits)
o1=$(overrun)
echo 0 > $T/tracing_on
rets=$((x1 - x0)) recs=$(grep -c ' getppid: (' $T/trace)
echo "# getppid, 500 calls: $rets returns, $recs records; overrun $o0 -> $o1"
grep ' getppid: (' $T/trace | head -1 | sed 's/^/# /'
ktap_check "returns_counted" test "$rets" -eq 500
if [ "$o1" -eq "$o0" ]; then
    ktap_check "records_are_returns" test "$recs" -eq "$rets"
else
    ktap_check "records_no_more_than_returns" test "$recs" -le "$rets"
fi
# Retire the big set with its events on: they stay until off; then go.
ktap_check "retire_with_events_on" bp_ctl 'unregister dl --sync\n'
ktap_check "events_kept_while_on" test -d $T/events/dl/getppid
echo 0 > $T/events/enable
for d in $T/events/w*/; do [ -d "$d" ] && echo 0 > "$d/enable" 2>/dev/null; done
ktap_check "next_sync_removes_them" bp_ctl "d:last/ $S\ncreate last --events\nunregister last --sync\n"
ktap_check "big_set_events_gone" test ! -d $T/events/dl
bp_wait_unpinned 30
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
rm -f /tmp/drload*
ktap_finish
