#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the batchprobe command, as `make install` puts it: each subcommand against the module's own files and the kernel's, and its sets removed after SIGINT and SIGTERM (and listed, then removed by rm, after SIGKILL)
# requires: CONFIG_KPROBES, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_DEBUG_INFO_BTF_MODULES, bp_foreign.ko (selftests/modules)
#
# The command (tools/batchprobe) talks to the module through its files
# only; here each of its answers is held against those files, or against
# what the test itself made the kernel do (N getppid() calls, N opens of a
# missing file, N records).
. ./bp_lib.sh
ktap_plan 54
T=/sys/kernel/tracing
BP=/usr/local/sbin/batchprobe
[ -x $BP ] || bp_bail_out "no $BP: the image's make install did not install the command"
OUT=/tmp/cli.out ERR=/tmp/cli.err

# wait_set PREFIX: the name of the live set whose name starts with PREFIX,
# once the sets file lists it enabled (10 s at most).
wait_set() {
    i=100
    while [ $i -gt 0 ]; do
        s=$(awk -v p="$1" 'index($1, p) == 1 && $2 == "enabled" { print $1; exit }' $BP_DEBUGFS/sets)
        [ -n "$s" ] && { echo "$s"; return 0; }
        usleep 100000
        i=$((i - 1))
    done
    return 1
}
# gone NAME: NAME is not a live set (removed, or freed).
gone() { ! bp_live_sets | grep -q "^$1 "; }
# col TABLE_FILE KEY N: column N of the row whose first column is KEY.
col() { awk -v k="$2" -v n="$3" '$1 == k { print $n; exit }' "$1"; }

# Without the module: one line, what to do.
$BP ls > $OUT 2> $ERR
rc=$?
ktap_check "no_module_says_load_it" test "$rc" -eq 1 -a ! -s $OUT -a "$(wc -l < $ERR)" -eq 1 \
    -a -n "$(grep 'modprobe batchprobe' $ERR)"
ktap_print_msg "$(cat $ERR)"

bp_load
$BP status > $OUT 2> $ERR
ktap_check "status_loaded" grep -q '^module  *ok  *loaded' $OUT
ver=$(cat /sys/module/batchprobe/version)
ktap_check "version_is_the_modules" test -n "$ver" -a "$($BP --version)" = "batchprobe $ver" \
    -a -n "$(grep "^module  *ok  *loaded, version $ver\$" $OUT)"
ktap_check "status_control_is_the_device" grep -q "^control  *ok  */dev/batchprobe" $OUT
mode="no lockdown LSM"
[ -e /sys/kernel/security/lockdown ] && mode=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/security/lockdown)
ktap_check "status_lockdown_is_the_kernels" grep -q "^lockdown  *ok  *$mode" $OUT
ktap_print_msg "$(cat $OUT)"

# apply: one write; the sets it makes stay.
printf 'p:cli_a/ %s\ncreate cli_a\nenable cli_a\n' "$BP_GETPPID" > /tmp/a.batch
ktap_check "apply" $BP apply /tmp/a.batch
ktap_check "apply_made_the_set" test "$(bp_state cli_a)" = enabled
bphit 7 > /dev/null
$BP ls > $OUT
ktap_check "ls_row_is_the_sets_line" test "$(col $OUT cli_a 2) $(col $OUT cli_a 3) $(col $OUT cli_a 6)" = \
    "enabled $(bp_set_probes cli_a) $(bp_field cli_a hits)"
$BP stats cli_a > $OUT
ktap_check "stats_hits_are_the_modules" test "$(col $OUT cli_a 5)" = "$(bp_probe_hits cli_a "$BP_GETPPID")"
ktap_check "stats_counted_the_calls" test "$(col $OUT cli_a 5)" -ge 7
$BP stats cli_a --json > $OUT
ktap_check "stats_json" grep -q "\"name\":\"cli_a\"" $OUT

# A refused batch: the module's last_error, caret included; nothing made.
printf 'p:cli_b/ vfs_read\np:cli_b/ vfs_read+zz\ncreate cli_b\n' | $BP apply - > $OUT 2> $ERR
rc=$?
ktap_check "refused_exits_1" test "$rc" -eq 1
tail -n +2 $ERR > /tmp/le.cli
ktap_check "refused_shows_last_error" cmp /tmp/le.cli $BP_DEBUGFS/last_error
ktap_check "refused_changed_nothing" test -z "$(bp_state cli_b)"
ktap_print_msg "$(cat $ERR)"

# top, once, in batch mode: cli_a's function among its rows.
bphit 50 > /dev/null &
$BP top -b -n 1 -i 1 > $OUT 2> $ERR
wait
ktap_check "top_lists_the_set" grep -q "^cli_a  *$BP_GETPPID  *fprobe " $OUT
ktap_check "top_counts_the_calls" test "$(awk '$1 == "cli_a" { print $5 }' $OUT)" -ge 57

ktap_check "rm" $BP rm cli_a
ktap_check "rm_removed_it" gone cli_a

# A batch over 128 KiB (where cat would write in pieces) whose last line
# is bad: one write, so nothing of it is made or staged.
awk 'BEGIN { for (i = 0; i < 6000; i++) printf "p:cli_big/p%d vfs_read\n", i; print "p:cli_big/ vfs_read+zz" }' > /tmp/big.batch
$BP apply /tmp/big.batch > $OUT 2> $ERR
rc=$?
ktap_check "big_batch_refused_whole" test "$rc" -eq 1 -a "$(wc -c < /tmp/big.batch)" -gt 131072
ktap_check "big_batch_left_nothing" test -z "$(bp_state cli_big)" -a -z "$(grep 'staged' $BP_DEBUGFS/sets)"

# count: a set for the patterns, N calls counted, removed at SIGINT. (bpfg:
# SIGINT at its default, as for a terminal's foreground job; a shell's
# background job has it ignored, and the command keeps it so, below.)
bpfg $BP count "$BP_GETPPID" 'vfs_read*' > $OUT 2> $ERR &
pid=$!
set=$(wait_set bpcount_)
ktap_check "count_made_its_set" test "$set" = "bpcount_$pid"
bphit 25 > /dev/null
kill -INT $pid; wait $pid
rc=$?
ktap_check "count_exits_0_at_sigint" test "$rc" -eq 0
ktap_check "count_counted_25_calls" test "$(col $OUT "$BP_GETPPID" 2)" = 25
ktap_check "count_removed_its_set_at_sigint" gone "$set"
ktap_print_msg "$(cat $ERR; head -4 $OUT)"

# SIGTERM does the same; --json prints a JSON object per interval.
$BP count --json -i 1 "$BP_GETPPID" > $OUT 2> $ERR &
pid=$!
set=$(wait_set bpcount_)
bphit 3 > /dev/null
kill -TERM $pid; wait $pid
ktap_check "count_removed_its_set_at_sigterm" test -n "$set" -a "$(bp_state "$set")" = freed
# The calls of each interval add up to the 3 made.
n=$(sed -n "s/.*{\"function\":\"$BP_GETPPID\",\"count\":\([0-9]*\)}.*/\1/p" $OUT | awk '{ s += $1 } END { print s + 0 }')
ktap_check "count_json_intervals_add_up" test "$n" -eq 3 -a "$(grep -c '^{"time":' $OUT)" -eq "$(wc -l < $OUT)"
ktap_print_msg "$(head -3 $OUT)"

# A SIGINT the caller ignores (a background job's) stays ignored; SIGTERM
# still ends the command.
$BP count "$BP_GETPPID" > /dev/null 2>&1 &
pid=$!
set=$(wait_set bpcount_)
kill -INT $pid
sleep 1
alive=$(bp_state "$set")
kill -TERM $pid; wait $pid
ktap_check "count_keeps_an_ignored_sigint" test "$alive" = enabled -a "$(bp_state "$set")" = freed

# -d: the command ends by itself, its set removed.
$BP count -d 1 "$BP_GETPPID" > $OUT 2> $ERR
rc=$?
ktap_check "count_ends_after_d" test "$rc" -eq 0 -a -z "$(bp_live_sets | grep '^bpcount_')"

# SIGKILL leaves the set: ls says whose it was, rm removes it.
$BP count "$BP_GETPPID" > /dev/null 2>&1 &
pid=$!
set=$(wait_set bpcount_)
kill -KILL $pid; wait $pid
$BP ls > $OUT
ktap_check "ls_marks_a_killed_commands_set" grep -q "left by batchprobe pid $pid: batchprobe rm $set" $OUT
$BP rm "$set"
ktap_check "rm_removes_it" gone "$set"

# latency --errors: 6 opens of a missing file, 4 of one that exists.
bpfg $BP latency --errors do_sys_openat2 > $OUT 2> $ERR &
pid=$!
set=$(wait_set bplatency_)
ktap_check "latency_made_an_exit_set" test "$(bp_field "$set" direct)" = 1
bpopen /no/such/file 6 > /dev/null
bpopen /proc/version 4 > /dev/null
kill -INT $pid; wait $pid
rc=$?
ktap_check "latency_exits_0" test "$rc" -eq 0
ktap_print_msg "$(cat $ERR $OUT)"
calls=$(col $OUT do_sys_openat2 2)
ktap_check "latency_timed_the_calls" test "${calls:-0}" -ge 10
ktap_check "latency_counted_6_enoent" test "$(awk '$1 == "do_sys_openat2" && $2 == "ENOENT" { print $3 }' $OUT)" = 6
# The histogram's rows add up to the calls.
rows=$(awk '/ -> / { s += $5 } END { print s + 0 }' $OUT)
ktap_check "latency_histogram_holds_every_call" test "$rows" = "$calls"
ktap_check "latency_removed_its_set" gone "$set"

# latency on a module's functions (MOD:GLOB): bp_foreign's errs=8 calls
# bp_foreign_errno 8 times, 2 returning -ENOENT and 2 -EINVAL (held against
# the kernel's kretprobe in test_module_direct.sh); the module is held
# loaded while the command runs, and let go when it ends.
rmmod bp_foreign 2>/dev/null
insmod "$BP_FOREIGN"
bpfg $BP latency --errors 'bp_foreign:bp_foreign_e*' > $OUT 2> $ERR &
pid=$!
set=$(wait_set bplatency_)
ktap_check "latency_module_holds_it" sh -c "$BP ls | grep -q 'holds bp_foreign loaded'"
echo 8 > /sys/module/bp_foreign/parameters/errs
kill -INT $pid; wait $pid
rc=$?
ktap_print_msg "$(cat $ERR $OUT)"
E=bp_foreign:bp_foreign_errno
ktap_check "latency_module_function_timed" test "$rc" -eq 0 -a "$(col $OUT $E 2)" = 8
ktap_check "latency_module_errnos" test "$(awk -v f=$E '$1 == f && $2 == "ENOENT" { print $3 }' $OUT)/$(awk -v f=$E '$1 == f && $2 == "EINVAL" { print $3 }' $OUT)" = 2/2
ktap_check "latency_module_let_go" rmmod bp_foreign

# latency --pid: only the calls of that process (6 opens), not another's
# (4), timed from its return records. The target waits for SIGUSR1, then
# becomes bpopen (exec: no open of its own after the command starts).
( trap 'exec bpopen /no/such/file 6' USR1; while :; do usleep 50000; done ) > /dev/null 2>&1 &
tgt=$!
: > $ERR
bpfg $BP latency --pid $tgt do_sys_openat2 > $OUT 2> $ERR &
pid=$!
i=100
while ! grep -q '^Tracing' $ERR && [ $i -gt 0 ]; do usleep 100000; i=$((i - 1)); done
bpopen /proc/version 4 > /dev/null
kill -USR1 $tgt; wait $tgt
sleep 1
kill -INT $pid; wait $pid
rc=$?
ktap_print_msg "$(cat $ERR $OUT)"
rows=$(awk '/ -> / { s += $5 } END { print s + 0 }' $OUT)
ktap_check "latency_pid_counts_only_its_calls" test "$rc" -eq 0 -a "$(col $OUT do_sys_openat2 2)" = 6 -a "$rows" = 6
ktap_check "latency_pid_removed_its_set_and_instance" \
    test -z "$(bp_live_sets | grep '^bplatency_')" -a ! -d $T/instances/batchprobe_$pid

# trace: records from a tracefs instance of its own, everything gone after.
: > $ERR   # (before the command: the loop below reads it)
bpfg $BP trace "p:clitr/gp $BP_GETPPID" > $OUT 2> $ERR &
pid=$!
# Its first line, once the events are on in its instance.
i=100
while ! grep -q '^Tracing' $ERR && [ $i -gt 0 ]; do usleep 100000; i=$((i - 1)); done
made=$(test -d $T/instances/batchprobe_$pid && echo yes)
bphit 4 > /dev/null
sleep 1
kill -INT $pid; wait $pid
rc=$?
ktap_check "trace_made_its_instance_and_exits_0" test "$made" = yes -a "$rc" -eq 0
ktap_check "trace_printed_4_records" test "$(grep -c ' gp: (' $OUT)" -eq 4
ktap_print_msg "$(cat $ERR)"
ktap_check "trace_removed_its_instance_and_set" \
    test ! -d $T/instances/batchprobe_$pid -a -z "$(bp_live_sets | grep '^clitr ')"
ktap_print_msg "$(head -2 $OUT)"

# trace --exit: a d: line's records at return, with $retval and the duration.
: > $ERR
bpfg $BP trace --exit "d:clix/gp $BP_GETPPID ret=\$retval" > $OUT 2> $ERR &
pid=$!
i=100
while ! grep -q '^Tracing' $ERR && [ $i -gt 0 ]; do usleep 100000; i=$((i - 1)); done
bphit 3 > /dev/null
sleep 1
kill -INT $pid; wait $pid
ktap_check "trace_exit_records" test "$(grep -c ' gp: (.* ret=.* duration=[0-9]' $OUT)" -eq 3
ktap_print_msg "$(cat $ERR; head -1 $OUT)"

# import: a kprobe_events line and an fprobe event's line, as one batch.
printf 'p:climp/rd vfs_read\nf:climp/wr_exit vfs_write%%return $retval\n' > /tmp/ke
ktap_check "import" $BP import /tmp/ke
ktap_check "import_made_the_events" test -d $T/events/climp/rd -a -d $T/events/climp/wr_exit
# What make install laid out in this image: the man pages, the service
# (not enabled), the examples; the service's start and stop, by hand.
U=/usr/local/lib/systemd/system/batchprobe.service X=/usr/local/share/batchprobe/examples
ktap_check "installed_files" test -f /usr/local/share/man/man8/batchprobe.8 -a -f /usr/local/share/man/man8/batchprobe-latency.8 \
    -a -n "$(grep '^ExecStart=.*/usr/local/sbin/batchprobe apply /etc/batchprobe.d/\*.batch' $U)" \
    -a -f $X/modules-load.d-batchprobe.conf -a -f $X/modprobe.d-batchprobe.conf -a -f $X/example.batch
$BP apply $X/example.batch
on=$(bp_state vfs)
$BP rm --batch $X/example.batch
ktap_check "service_start_and_stop" test "$on" = enabled -a -z "$(bp_live_sets | grep '^vfs ')"
ktap_check "rm_all" $BP rm --all
ktap_check "rm_all_left_no_set" test -z "$(bp_live_sets)"

ktap_check "rmmod" rmmod batchprobe
ktap_finish
