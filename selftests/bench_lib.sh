# SPDX-License-Identifier: GPL-2.0
# `make bench`'s methods (sourced: guest-bench.sh runs them, guest-demo.sh
# and the timed subshells below use some): every method on the same kind of
# symbols, in one boot. Each prints one line per measurement:
#   BENCH method=M n=N run=R phase=P ns=T [offset=O] [got=K]
#   BENCH method=M n=N status=over-budget projected_s=S
#   BENCH method=M n=N run=R status=failed    (bench_failed: no sample)
#   BENCHFAIL PART: WHY                         (part_failed: a part that
#                                                could not run at all)
#   BENCHGP method=M n=N run=R phase=P gp=RCU/RCU_TASKS/RCU_TASKS_RUDE
# The host (scripts/bench.sh) turns them into tables and a plot.
. ./bp_lib.sh
T=/sys/kernel/tracing
RUNS=${BP_BENCH_RUNS:-5}
SIZES=${BP_BENCH_SIZES:-"64 256 1024 4096"}
# "all": every function ftrace can trace (available_filter_functions).
DIRECT_SIZES=${BP_BENCH_DIRECT_SIZES:-"64 256 1000 4000 all"}
DIRECT_RUNS=${BP_BENCH_DIRECT_RUNS:-5}  # 3 for "all"
BIG_RUNS=${BP_BENCH_BIG_RUNS:-3}      # repeats for N > 256
BUDGET_S=${BP_BENCH_BUDGET_S:-60}     # one run of one method at one N
HITS=${BP_BENCH_HITS:-200000}
now() { cut -d' ' -f1 /proc/uptime; }
# A run that went wrong says so: the report names it instead of showing a
# median of fewer runs as if nothing happened (a table cell says "failed").
bench_failed() { echo "BENCH method=$1 n=$2 run=$3 status=failed"; }
# A part that could not run at all says why: the report lists it.
part_failed() { echo "BENCHFAIL $*"; }

# A per-call figure is reported only where what it times was live: the
# probe counted every call, or every call wrote its record. HITS getppid()
# calls (bphit) with what counts them read around them; each sets calls_ns
# (ns per call) and calls_got (what was counted meanwhile).
# bench_calls SET: counted by SET's hits (the sets file).
bench_calls() {
    _h0=$(bp_field "$1" hits)
    calls_ns=$(bphit $HITS)
    calls_got=$(($(bp_field "$1" hits) - ${_h0:-0}))
}
# bench_records: counted as records written to the top ring buffer
# (entries plus those overwritten, every CPU).
ring_written() { awk '/^entries:/ { e += $2 } /^overrun:/ { e += $2 } END { print e + 0 }' $T/per_cpu/cpu*/stats; }
bench_records() {
    _r0=$(ring_written)
    calls_ns=$(bphit $HITS)
    calls_got=$(($(ring_written) - _r0))
}
# bench_armed SET: an empty handler counts nothing; the figure stands if
# SET is enabled with one probe or more (calls_got: its probes).
bench_armed() {
    calls_ns=$(bphit $HITS) calls_got=0
    [ "$(bp_state "$1")" = enabled ] && calls_got=$(bp_set_probes "$1")
}
# bench_live METHOD PHASE RUN [MIN]: the BENCH line of the last
# bench_calls/bench_records (got=, at least MIN, HITS by default), or a
# note saying why there is no figure.
bench_live() {
    if [ "${calls_got:-0}" -ge "${4:-$HITS}" ] && [ "${calls_got:-0}" -gt 0 ]; then
        echo "BENCH method=$1 n=1 run=$3 phase=$2 ns=$calls_ns got=$calls_got"
    else
        echo "# $1 run $3: not live: ${calls_got:-0} counted for $HITS calls; no figure"
    fi
}


# +5 skips the ftrace call site, as the seed script does; with IBT (this
# kernel) only functions without an endbr64 accept it, about one in six, so
# the largest N uses +9 (endbr64 + the 5-byte fentry call): the same int3 /
# optprobe mechanism. +0 would make them ftrace-based kprobes, which arm
# and disarm one ftrace filter update (and patching pass) each: measured
# here at 56 s to enable and 66 s to disarm 4096 of them.
offset_for() { if [ "$1" -gt 1024 ]; then echo 9; else echo 5; fi; }

# Seed script, tracefs side: the first N kallsyms text symbols (no '.')
# that accept a probe at +OFF, one kprobe_events write each. Both paths
# leave out *lock* symbols: a kprobe on lockdep's lock_acquire (not on the
# kernel's blacklist) crashed this lockdep kernel once, when an int3 that
# no kprobe owned went through notify_die -> rcu_read_lock -> lock_acquire
# while the probe there was an int3 (BUG at kernel/entry/common.c:378).
# tracefs_register N OFF: registers them and prints the wall time in ns of
# the writes alone: each line appended with an open, a write and a close of
# its own, as the seed script's `echo >>` does (bplines), the candidates
# picked beforehand, untimed (BP_SEED_ARGS: fetch arguments on each line).
tracefs_register() {
    grep -i " t " /proc/kallsyms | cut -f3 -d" " | grep -v '\.' | grep -v lock |
        A="${BP_SEED_ARGS:-}" awk -v off="$2" '{ print "p " $0 "+" off " " ENVIRON["A"] }' \
        > /tmp/bp-seed-lines
    bplines "$1" $T/kprobe_events < /tmp/bp-seed-lines | cut -d' ' -f1
}

tracefs_run() { # method n run
    off=$(offset_for "$2")
    echo > $T/kprobe_events
    ns=$(tracefs_register "$2" "$off")
    got=$(wc -l < $T/kprobe_events)
    echo "BENCH method=$1 n=$2 run=$3 phase=register ns=$ns offset=$off got=$got"
    ns=$(printf '1\n' | bpwrite -t $T/events/kprobes/enable)
    echo "BENCH method=$1 n=$2 run=$3 phase=enable ns=$ns"
    sleep 0.5
    ns=$(printf '0\n' | bpwrite -t $T/events/kprobes/enable)
    echo "BENCH method=$1 n=$2 run=$3 phase=disable ns=$ns"
    sleep 0.5
    ns=$(bpwrite -T $T/kprobe_events < /dev/null)
    echo "BENCH method=$1 n=$2 run=$3 phase=unregister_complete ns=$ns"
}

bp_run() { # method n run [create options]
    off=$(offset_for "$2")
    # bp_ctl takes a printf format: the arguments' % doubled.
    args=$(printf '%s' "${BP_SEED_ARGS:-}" | sed 's/%/%%/g')
    bp_ctl "p:b${3}/ *+${off} max=$2 skip=*lock* $args\n" || return 1
    bp_ctl "create b${3} $4\n" || { cat $BP_DEBUGFS/last_error; return 1; }
    got=$(bp_field "b$3" kprobes)
    bp_ctl "enable b$3\n"
    sleep 0.5
    bp_ctl "disable b$3\n"
    sleep 0.5
    wall=$(printf 'unregister b%s\n' "$3" | bpwrite -t "$BP_CTL")
    bp_ctl "flush\n"
    for p in register enable disable disarm unregister_call teardown unregister_complete; do
        echo "BENCH method=$1 n=$2 run=$3 phase=$p ns=$(bp_timing "b$3" ${p}_ns) offset=$off got=$got"
    done
    echo "BENCH method=$1 n=$2 run=$3 phase=unregister_call_wall ns=$wall"
    for p in register enable disarm teardown; do
        echo "BENCHGP method=$1 n=$2 run=$3 phase=$p gp=$(bp_gps "b$3" $p)"
    done
}

# Direct calls on the first N ftrace-able text functions: one set (one ops,
# one patching pass), one ops per function, or one fprobe.
direct_run() { # method n run [create options]
    # Let the previous run's deferred work (RCU-tasks callbacks that free
    # ftrace hashes and trampolines) finish before timing the next.
    sleep 1
    bp_ctl "d:d${3}/ * max=$2\n" || return 1
    bp_ctl "create d${3} $4\n" || { cat $BP_DEBUGFS/last_error; return 1; }
    got=$(bp_field "d$3" direct)
    bp_ctl "enable d$3\n"
    bp_ctl "unregister d$3\nflush\n"
    for p in register attach unregister_call detach teardown unregister_complete; do
        echo "BENCH method=$1 n=$2 run=$3 phase=$p ns=$(bp_timing "d$3" ${p}_ns) got=$got"
    done
    for p in register detach teardown; do
        echo "BENCHGP method=$1 n=$2 run=$3 phase=$p gp=$(bp_gps "d$3" $p)"
    done
}

# direct and fprobe at each N, their runs interleaved (direct, fprobe,
# direct, ...) so that both see the same guest state: both do one filter
# update and one patching pass, and the comparison between them is the point.
direct_vs_fprobe() {
    for n in $DIRECT_SIZES; do
        nruns=$DIRECT_RUNS
        [ "$n" -gt 4000 ] && [ "$nruns" -gt 3 ] && nruns=3
        for r in $(seq 1 "$nruns"); do
            direct_run direct "$n" "$r" ""
            direct_run fprobe "$n" "$r" --fprobe
        done
    done
}

# Entry probes at +0 on the same N functions, three ways: tracefs `p SYM`
# (kprobes at +0 on ftrace-able functions are ftrace-based: one filter
# update and patching pass each to arm and disarm), batchprobe forced to
# kprobes (`p!:`), and batchprobe's automatic choice (`p:`: one fprobe, one
# patching pass). The functions: ftrace-able (available_filter_functions),
# core kernel, unique names, not on the kprobe blacklist, no '.' and no
# *lock*; tracefs registers them until N are accepted, and the batchprobe
# methods take exactly the ones it accepted. "all": every such function,
# batchprobe's automatic choice only (the kprobe methods would take tens
# of minutes here).
ENTRY_SIZES=${BP_BENCH_ENTRY_SIZES:-"256 1024 4096 all"}
entry_candidates() {
    awk 'NF == 2 { print $2 }' /sys/kernel/debug/kprobes/blacklist | sort -u > /tmp/bp-black
    grep -v '\[' $T/available_filter_functions | grep -v '\.' | grep -v lock | sort | uniq -u \
        | grep -vxF -f /tmp/bp-black > /tmp/bp-entry-candidates
}

entry_tracefs() { # n run: registers, times, leaves the accepted list in /tmp/bp-entry
    echo > $T/kprobe_events
    ns=$(sed 's/^/p /' /tmp/bp-entry-candidates | bplines "$1" $T/kprobe_events | cut -d' ' -f1)
    awk '{ print $2 }' $T/kprobe_events > /tmp/bp-entry
    got=$(wc -l < /tmp/bp-entry)
    echo "BENCH method=entry-tracefs n=$1 run=$2 phase=register ns=$ns got=$got"
    ns=$(printf '1\n' | bpwrite -t $T/events/kprobes/enable)
    echo "BENCH method=entry-tracefs n=$1 run=$2 phase=enable ns=$ns"
    ns=$(printf '0\n' | bpwrite -t $T/events/kprobes/enable)
    echo "BENCH method=entry-tracefs n=$1 run=$2 phase=disable ns=$ns"
    ns=$(bpwrite -T $T/kprobe_events < /dev/null)
    echo "BENCH method=entry-tracefs n=$1 run=$2 phase=unregister_complete ns=$ns"
}

entry_bp() { # method n run kind(p or p!) [create options]: the functions in /tmp/bp-entry
    set=e$3
    # Staged in writes of at most 20000 lines (a write is at most 1 MiB).
    rm -f /tmp/bp-entry-part.*
    awk -v k="$4" -v s=$set '{ printf "%s:%s/ %s\n", k, s, $1 > ("/tmp/bp-entry-part." int((NR - 1) / 20000)) }' /tmp/bp-entry
    for f in /tmp/bp-entry-part.*; do
        bpwrite $BP_CTL < "$f" || return 1
    done
    rm -f /tmp/bp-entry-part.*
    # Counting only unless told (the events bench passes --events): an
    # explicit line's probe gets an event by default.
    bp_ctl "create $set ${5:---no-events}\n" || { cat $BP_DEBUGFS/last_error; return 1; }
    got=$(($(bp_field $set kprobes) + $(bp_field $set fprobes)))
    bp_ctl "enable $set\n"
    bp_ctl "disable $set\n"
    # The physical disarm runs on the workqueue; unregister queues behind it.
    bp_ctl "unregister $set\nflush\n"
    for p in register enable disarm teardown unregister_complete; do
        echo "BENCH method=$1 n=$2 run=$3 phase=$p ns=$(bp_timing $set ${p}_ns) got=$got"
    done
    for p in register enable disarm teardown; do
        echo "BENCHGP method=$1 n=$2 run=$3 phase=$p gp=$(bp_gps $set $p)"
    done
    echo "BENCHINFO entry_backends_$1_$2=kprobes:$(bp_field $set kprobes),fprobes:$(bp_field $set fprobes)"
}

entry_probes() {
    entry_candidates
    echo "BENCHINFO entry_candidates=$(wc -l < /tmp/bp-entry-candidates)"
    r=0 kp_n=0 kp_s=0
    for n in $ENTRY_SIZES; do
        if [ "$n" = all ]; then
            cp /tmp/bp-entry-candidates /tmp/bp-entry
            n=$(wc -l < /tmp/bp-entry)
            r=$((r + 1)); entry_bp entry-auto "$n" "$r" p || bench_failed entry-auto "$n" "$r"
            # Projected from the largest N the kprobe method ran.
            [ "$kp_n" -gt 0 ] && echo "BENCH method=entry-kprobe n=$n status=over-budget projected_s=$(awk -v s="$kp_s" -v a="$kp_n" -v b="$n" 'BEGIN { printf "%d", s * b / a }')"
            continue
        fi
        nruns=1
        [ "$n" -le 256 ] && nruns=3
        for k in $(seq 1 $nruns); do
            r=$((r + 1))
            entry_tracefs "$n" "$r"
            t0=$(now)
            entry_bp entry-kprobe "$n" "$r" 'p!' || bench_failed entry-kprobe "$n" "$r"
            kp_n=$n kp_s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%d", b - a + 0.999 }')
            entry_bp entry-auto "$n" "$r" p || bench_failed entry-auto "$n" "$r"
        done
    done
}

# The seed with fetch arguments on every probe (issue 35): the seed's
# lines (int3 kprobes at +5/+9 on the first N text symbols), each with the
# same arguments (registers and a string: what an offset inside a function
# can read), through kprobe_events (an event per line) and one batchprobe
# set created with --events (an event per probe), every phase as in the
# seed. In tracefs, enable is enabling the events (which arms the probes
# and starts their records); in batchprobe, enabling the set (its events
# stay off: records start when they are enabled, at no probe cost).
SEED_ARGS=${BP_BENCH_SEED_ARGS:-'a=%di:x64 b=%si:u32 c=$comm:string'}
SEED_ARGS_SIZES=${BP_BENCH_SEED_ARGS_SIZES:-"256 1024"}
SEED_ARGS_RUNS=${BP_BENCH_SEED_ARGS_RUNS:-3}
seed_args() {
    echo "BENCHINFO seed_args=$SEED_ARGS"
    echo "BENCHINFO seed_args_runs=$SEED_ARGS_RUNS"
    echo 1 > /proc/sys/debug/kprobes-optimization
    export BP_SEED_ARGS="$SEED_ARGS"
    method tracefs-args tracefs_run "" "$SEED_ARGS_SIZES" "$SEED_ARGS_RUNS"
    method batchprobe-args bp_run --events "$SEED_ARGS_SIZES" "$SEED_ARGS_RUNS"
    unset BP_SEED_ARGS
}

# What a set's events cost at create and teardown (issue 35): the same set
# of p: lines on N functions (entry_candidates': batchprobe's fprobe) made
# without and with --events (an event per probe, registered in tracefs at
# create, removed at teardown), in turn, each run. "all": every candidate.
EVENT_SIZES=${BP_BENCH_EVENT_SIZES:-"256 4096 all"}
EVENT_RUNS=${BP_BENCH_EVENT_RUNS:-3}
events_cost() {
    echo "BENCHINFO event_runs=$EVENT_RUNS"
    entry_candidates
    r=0
    for n in $EVENT_SIZES; do
        if [ "$n" = all ]; then
            cp /tmp/bp-entry-candidates /tmp/bp-entry
        else
            head -n "$n" /tmp/bp-entry-candidates > /tmp/bp-entry
        fi
        n=$(wc -l < /tmp/bp-entry)
        for k in $(seq 1 "$EVENT_RUNS"); do
            r=$((r + 1)); entry_bp events-off "$n" "$r" p || bench_failed events-off "$n" "$r"
            r=$((r + 1)); entry_bp events-on "$n" "$r" p --events || bench_failed events-on "$n" "$r"
        done
    done
}

# Entry and exit on the same N functions, four ways:
#   exit                    one set made with --exit: the exit trampoline on
#                           all N, one ftrace_ops, one patching pass
#   fprobe-exit             p: and r: lines: the set's fprobe with entry and
#                           exit handlers (rethook)
#   entry-kretprobe         d: (direct entry) plus r!: (a kretprobe) per
#                           function; the kretprobes arm at enable
#   exit-ops-per-function   --exit --one-by-one: one ops (and patching pass,
#                           and two RCU-tasks grace periods to detach) each
# The functions: entry_candidates' (ftrace-able, kprobe-able, unique
# names) that the exit trampoline accepts (a --exit glob set keeps exactly
# those), not x64_sys_call (the shells above would sleep in wait4 through
# it). "all": every such function. attach is the wall time of the write
# `create S; enable S`, detach that of `unregister S --sync`.
EXIT_SIZES=${BP_BENCH_EXIT_SIZES:-"256 1000 all"}
exit_candidates() {
    entry_candidates
    bp_ctl 'd:xacc/ * skip=x64_sys_call\ncreate xacc --exit\n' || return 1
    awk '$1 == "set" { s = ($2 == "xacc"); next } s && $1 == "direct" { sub(/\+0$/, "", $3); print $3 }' \
        $BP_DEBUGFS/stats > /tmp/bp-exit-ok
    bp_ctl 'unregister xacc --sync\n'
    grep -xF -f /tmp/bp-exit-ok /tmp/bp-entry-candidates > /tmp/bp-exit-candidates
    echo "BENCHINFO exit_candidates=$(wc -l < /tmp/bp-exit-candidates)"
}

# The in-kernel API's way (BATCHPROBE_DIRECT_EXIT targets): the C sample
# client makes one exit set of the same functions, its "x SYM" lines
# written first; attach is the wall time of its create_exits control
# write (batchprobe_create and batchprobe_enable), detach that of
# retire_exits (batchprobe_unregister_sync). The client is loaded for
# each run, outside the timing.
exit_api_run() { # n run
    head -n "$1" /tmp/bp-exit-candidates | sed 's/^/x /' > /tmp/bp-exit-x
    c=/sys/kernel/debug/bpclient_c
    insmod "$BP_CLIENT_C" defer=1 || return 1
    bpwrite $c/targets < /tmp/bp-exit-x || return 1
    ns=$(printf create_exits | bpwrite -t $c/control) || { cat $BP_DEBUGFS/last_error; rmmod bpclient_c; return 1; }
    got=$(bp_field bpclient_c.exits direct)
    echo "BENCH method=exit-api n=$1 run=$2 phase=attach ns=$ns got=$got"
    ns=$(printf retire_exits | bpwrite -t $c/control)
    echo "BENCH method=exit-api n=$1 run=$2 phase=detach ns=$ns got=$got"
    rmmod bpclient_c
}

exit_run() { # method n run
    [ "$1" = exit-api ] && { exit_api_run "$2" "$3"; return; }
    head -n "$2" /tmp/bp-exit-candidates > /tmp/bp-exit-n
    set=x$3 opts=
    case $1 in
        exit) fmt='d:%s/ %s\n'; opts=--exit ;;
        exit-ops-per-function) fmt='d:%s/ %s\n'; opts='--exit --one-by-one' ;;
        entry-kretprobe) fmt='d:%s/ %s\nr!:%s/r%d %s\n'; opts=--no-events ;;
        fprobe-exit) fmt='p:%s/ %s\nr:%s/r%d %s\n'; opts=--no-events ;;
    esac
    awk -v f="$fmt" -v s=$set '{ printf f, s, $1, s, NR, $1 }' /tmp/bp-exit-n > /tmp/bp-exit-lines
    bpwrite $BP_CTL < /tmp/bp-exit-lines || { cat $BP_DEBUGFS/last_error; return 1; }
    ns=$(printf 'create %s %s\nenable %s\n' "$set" "$opts" "$set" | bpwrite -t "$BP_CTL") ||
        { cat $BP_DEBUGFS/last_error; return 1; }
    got=$(($(bp_field $set direct) + $(bp_field $set fprobes)))
    echo "BENCH method=$1 n=$2 run=$3 phase=attach ns=$ns got=$got"
    ns=$(printf 'unregister %s --sync\n' "$set" | bpwrite -t "$BP_CTL")
    echo "BENCH method=$1 n=$2 run=$3 phase=detach ns=$ns got=$got"
    for p in register enable teardown; do
        echo "BENCHGP method=$1 n=$2 run=$3 phase=$p gp=$(bp_gps $set $p)"
    done
}

# Methods that take turns at growing N skip an N where one run would pass
# a budget, projected linearly from the largest N the method ran so far:
# its N and the seconds one run took there are ${PREFIX}_n_M and
# ${PREFIX}_s_M (M with - as _).
# projection PREFIX M N: the seconds one run of M at N would take (0: M has
# not run yet).
projection() {
    v=$(echo "$2" | tr - _)
    eval "pn=\${${1}_n_$v:-0} ps=\${${1}_s_$v:-0}"
    if [ "$pn" -gt 0 ]; then
        awk -v s="$ps" -v a="$pn" -v b="$3" 'BEGIN { printf "%d", s * b / a }'
    else
        echo 0
    fi
}
# within_budget PREFIX M N BUDGET_S: whether one run of M at N, projected
# (in $projected), stays within BUDGET_S seconds; if not, says so.
within_budget() {
    projected=$(projection "$1" "$2" "$3")
    [ "$projected" -le "$4" ] && return 0
    echo "BENCH method=$2 n=$3 status=over-budget projected_s=$projected"
    return 1
}
# repeats N: how many times the methods take turns at N: BIG_RUNS up to
# 1000 functions, once for more.
repeats() {
    if [ "$1" -gt 1000 ]; then echo 1; else echo "$BIG_RUNS"; fi
}
# ran PREFIX M N T0: M ran at N, from T0 (now's clock) until now.
ran() {
    v=$(echo "$2" | tr - _)
    eval "${1}_n_$v=$3 ${1}_s_$v=$(awk -v a="$4" -v b="$(now)" 'BEGIN { printf "%d", b - a + 0.999 }')"
}

exit_probes() {
    exit_candidates || { part_failed "exit: no candidates (the exit set xacc on every function was refused: $(cat $BP_DEBUGFS/last_error))"; return 0; }
    r=0
    for n in $EXIT_SIZES; do
        [ "$n" = all ] && n=$(wc -l < /tmp/bp-exit-candidates)
        # The slow baselines past the N where one run (attach and detach)
        # would take minutes here: projected from the largest N they ran.
        todo=
        # exit-api: where the C client is there and its debugfs files can
        # be written (not locked down).
        api=
        [ -f "$BP_CLIENT_C" ] && ! bp_locked_down && api=exit-api
        for m in exit $api fprobe-exit entry-kretprobe exit-ops-per-function; do
            within_budget exit "$m" "$n" "$BUDGET_S" && todo="$todo $m"
        done
        # The methods take turns within each repeat, as direct and fprobe
        # do above, so that a slow spell of the host does not land on one
        # method's runs.
        for _ in $(seq 1 "$(repeats "$n")"); do
            for m in $todo; do
                r=$((r + 1))
                t0=$(now)
                exit_run "$m" "$n" "$r" || bench_failed "$m" "$n" "$r"
                ran exit "$m" "$n" "$t0"
            done
        done
    done
}

# Per call on getppid: entry + exit each way, and entry only, against no
# probe at all; the exit set also with its aggregates (--hist: the clock
# read at entry and exit and a histogram bucket; --errors too: the return
# value checked, getppid returns no error).
per_call_exit() {
    for r in $(seq 1 "$RUNS"); do
        echo "BENCH method=no-probe n=1 run=$r phase=per_call ns=$(bphit $HITS)"
        for m in "exit d --exit" "exit-hist d --exit --hist" "exit-hist-errors d --exit --hist --errors" \
            "direct-entry d" "fprobe-exit p" "entry-kretprobe d"; do
            set -- $m
            name=$1
            shift 2
            set -- "$name" "$*"
            case $1 in
                fprobe-exit) lines="p:hx/ $BP_GETPPID\nr:hx/r $BP_GETPPID\n" ;;
                entry-kretprobe) lines="d:hx/ $BP_GETPPID\nr!:hx/r $BP_GETPPID\n" ;;
                *) lines="d:hx/ $BP_GETPPID\n" ;;
            esac
            bp_ctl "${lines}create hx ${2:-} --no-events\nenable hx\n" || continue
            # Entry and exit both count: each call twice where two probes
            # (an entry and a return probe) share the function.
            bench_calls hx
            bench_live "$1" per_call "$r"
            bp_ctl "unregister hx --sync\n"
        done
    done
}

# The BPF peers (selftests/bpfpeer.c): what users attach thousands of
# probes with instead, on the same functions in the same boot.
#   entry only, N = PEER_ENTRY_SIZES: batchprobe's fprobe set (`p:` lines)
#     and direct set (`d:` lines), vs one kprobe_multi link
#   entry + exit, N = PEER_EXIT_SIZES: batchprobe's exit set (`d:` lines,
#     --exit), vs kprobe_multi + kretprobe_multi links, vs one fentry and
#     one fexit link per function (retsnoop's way), vs tracing_multi
#     (fentry.multi + fexit.multi links, and fsession.multi) where the
#     kernel has it
# attach: batchprobe's `create; enable` write (the write(2) alone, timed
# in bpwrite, as bpfpeer times its own calls); BPF's load (the verifier)
# plus link. detach: batchprobe's `unregister --sync` write; BPF's closing
# of links and programs until every program has left the kernel's id
# table. Grace periods: the waits started during the phase, system-wide,
# from the module's totals (stats header), the same counters for all.
# Per call: getppid() in a tight loop with each way on __task_pid_nr_ns,
# which getppid calls once (the syscall wrappers have no BTF, so fentry
# cannot take __x64_sys_getppid).
PEER_ENTRY_SIZES=${BP_BENCH_PEER_ENTRY_SIZES:-"256 1000 4000 all"}
PEER_EXIT_SIZES=${BP_BENCH_PEER_EXIT_SIZES:-"256 1000"}
PEER_BUDGET_S=${BP_BENCH_PEER_BUDGET_S:-300}  # one run of one method at one N
# Repeats at every N (the goals are medians of at least 3 runs), but one
# for a method whose run passes BUDGET_S.
PEER_RUNS=${BP_BENCH_PEER_RUNS:-3}
PEER_FUNC=__task_pid_nr_ns

# The module's running totals: "RCU RCU_TASKS RCU_TASKS_RUDE" ("-" if none).
gp_now() {
    head -1 $BP_DEBUGFS/stats | tr ' ' '\n' | sed -n 's/^rcu[a-z_]*=//p' | tr '\n' ' '
}
# gp_since TOTALS: the waits since gp_now printed TOTALS, as a/b/c.
gp_since() {
    echo "$1 $(gp_now)" | awk '{ n = NF / 2; s = ""
        for (i = 1; i <= n; i++) s = s (i > 1 ? "/" : "") ($i == "-" ? "-" : $(i + n) - $i)
        print s }'
}

peer_candidates() {
    entry_candidates
    # Not a name kallsyms has twice (t_start, say: one ftrace-able, one
    # not), which each method resolves its own way: batchprobe's `d:` takes
    # the first in address order and refuses the batch if ftrace cannot
    # call it; kprobe_multi and tracing_multi look them up differently.
    grep -i ' t ' /proc/kallsyms | cut -d' ' -f3 | sort | uniq -d > /tmp/bp-ksym-dups
    grep -vxF -f /tmp/bp-ksym-dups /tmp/bp-entry-candidates > /tmp/bp-peer-entry
    echo "BENCHINFO peer_entry_candidates=$(wc -l < /tmp/bp-peer-entry)"
    # Entry + exit: the exit trampoline's functions with one traceable BTF
    # function each, that fentry and fexit programs load on and, where the
    # kernel has it, one tracing_multi link takes (one refused id fails the
    # whole link: bpfpeer accept bisects). Enough for the largest N.
    # (exit_probes, earlier in the same boot, may have listed them.)
    [ -s /tmp/bp-exit-candidates ] || exit_candidates || return 1
    max=0
    for n in $PEER_EXIT_SIZES; do [ "$n" -gt "$max" ] && max=$n; done
    grep -vxF -f /tmp/bp-ksym-dups /tmp/bp-exit-candidates | ./bpfpeer filter | head -n $((max + max / 4)) |
        ./bpfpeer accept fentry-fexit > /tmp/bp-peer-x
    if ./bpfpeer modes | grep -qx fentry-fexit-multi; then
        ./bpfpeer accept fentry-fexit-multi < /tmp/bp-peer-x > /tmp/bp-peer-y
        mv /tmp/bp-peer-y /tmp/bp-peer-x
    fi
    head -n "$max" /tmp/bp-peer-x > /tmp/bp-peer-exit
    echo "BENCHINFO peer_exit_candidates=$(wc -l < /tmp/bp-peer-exit)"
    echo "BENCHINFO peer_modes=$(./bpfpeer modes | tr '\n' ',' | sed 's/,$//')"
}

peer_bp() { # method n run: batchprobe on the names in /tmp/bp-peer-n
    set=q$3 opts=--no-events args= way=${1%-cold}
    case ${way%-loaded} in
        peer-bp-fprobe) kind=p ;;
        # The same lines with their events (the grammar's default): what
        # an event per probe adds to the attach.
        peer-bp-fprobe-events) kind=p opts= ;;
        peer-bp-direct) kind=d ;;
        peer-bp-exit) kind=d opts="--exit --no-events" ;;
        # Return records on: an event per function, its first argument kept
        # at entry (the trampoline that keeps them). Not $retval: BTF makes
        # the kernel (and batchprobe) refuse it on a void function.
        peer-bp-exit-rec) kind=d opts=--exit args=' a=$arg1:x64' ;;
    esac
    rm -f /tmp/bp-peer-part.*
    awk -v k=$kind -v s=$set -v a="$args" '{ printf "%s:%s/ %s%s\n", k, s, $1, a > ("/tmp/bp-peer-part." int((NR - 1) / 20000)) }' /tmp/bp-peer-n
    # The staging writes (parse, resolve every name) are part of the
    # attach, as a BPF link's load is part of its: attach = stage + create.
    stage=0
    g=$(gp_now)
    for f in /tmp/bp-peer-part.*; do
        ns=$(bpwrite -t $BP_CTL < "$f") || { cat $BP_DEBUGFS/last_error; return 1; }
        stage=$((stage + ns))
    done
    rm -f /tmp/bp-peer-part.*
    ns=$(printf "create $set $opts\nenable $set\n" | bpwrite -t $BP_CTL) ||
        { cat $BP_DEBUGFS/last_error; return 1; }
    echo "BENCHGP method=$1 n=$2 run=$3 phase=attach gp=$(gp_since "$g")"
    got=$(($(bp_field $set direct) + $(bp_field $set fprobes) + $(bp_field $set kprobes)))
    echo "BENCH method=$1 n=$2 run=$3 phase=stage ns=$stage got=$got"
    echo "BENCH method=$1 n=$2 run=$3 phase=create ns=$ns got=$got"
    echo "BENCH method=$1 n=$2 run=$3 phase=attach ns=$((stage + ns)) got=$got"
    # Where the create's time went, as the set's stats say: register_ns,
    # its build (names resolved, probes made, events added); enable_ns,
    # its arming (an fprobe set's register_fprobe_ips(), the kernel's
    # text patching, as a kprobe_multi link's). Not read by benchreport.
    echo "BENCHSPLIT method=$1 n=$2 run=$3 register_ns=$(bp_timing $set register_ns) enable_ns=$(bp_timing $set enable_ns)"
    g=$(gp_now)
    ns=$(printf "unregister $set --sync\n" | bpwrite -t $BP_CTL)
    echo "BENCHGP method=$1 n=$2 run=$3 phase=detach gp=$(gp_since "$g")"
    echo "BENCH method=$1 n=$2 run=$3 phase=detach ns=$ns got=$got"
}

peer_bpf() { # method n run: bpfpeer's mode (method without peer- or mod-) on /tmp/bp-peer-n
    mode=${1#peer-}
    out=$(./bpfpeer bench "${mode#mod-}" < /tmp/bp-peer-n 2> /tmp/bp-peer-err)
    got=$(echo "$out" | tr ' ' '\n' | sed -n 's/^got=//p')
    [ -n "$got" ] || { echo "# $1 n=$2: $(head -3 /tmp/bp-peer-err)"; return 1; }
    for p in load link attach detach; do
        ns=$(echo "$out" | tr ' ' '\n' | sed -n "s/^${p}_ns=//p")
        echo "BENCH method=$1 n=$2 run=$3 phase=$p ns=$ns got=$got"
        echo "BENCHGP method=$1 n=$2 run=$3 phase=$p gp=$(echo "$out" | tr ' ' '\n' | sed -n "s/^${p}_gp=//p")"
    done
}

# peer_cold METHOD N: batchprobe's way METHOD as a user meets it first:
# the module loaded afresh (insmod, timed: phase=insmod), then its first
# create of N functions (peer_bp), which pays for the tables the module
# builds on first use (the kernel's text, the name index, the call sites,
# BTF). Reported as METHOD-cold, run 1; the warm runs follow.
peer_cold() { # method n
    if ! rmmod batchprobe 2>/dev/null; then
        echo "BENCHINFO cold.$1.n$2=skipped (rmmod batchprobe refused: a client module holds it)"
        return 0
    fi
    ns=$(bptime insmod "$BP_KO") || { echo "# insmod $BP_KO failed"; return 1; }
    echo "BENCH method=$1-cold n=$2 run=1 phase=insmod ns=$ns"
    peer_bp "$1-cold" "$2" 1
}

# peer_loaded METHOD N: the module loaded afresh and left alone until the
# walk of the kernel's text symbols it starts at load has ended (stats'
# text_symbols above 0; phase=fill: from before insmod to then, read from
# /proc/uptime, so to 10 ms), then its first create (peer_bp): what a user
# meets who loaded the module (modprobe, or at boot) before asking.
# Reported as METHOD-loaded, run 1.
peer_loaded() { # method n
    if ! rmmod batchprobe 2>/dev/null; then
        echo "BENCHINFO loaded.$1.n$2=skipped (rmmod batchprobe refused: a client module holds it)"
        return 0
    fi
    t0=$(now)
    insmod "$BP_KO" || { echo "# insmod $BP_KO failed"; return 1; }
    i=0
    while [ "$(bp_stats_header text_symbols)" = 0 ]; do
        i=$((i + 1))
        [ $i -le 60000 ] || { echo "# $1-loaded n=$2: the walk after load did not end in 600 s"; break; }
        sleep 0.01
    done
    t1=$(now)
    echo "BENCH method=$1-loaded n=$2 run=1 phase=fill ns=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1e9 }')"
    peer_bp "$1-loaded" "$2" 1
}

# peer_round LIST SIZES METHODS...: each N, the methods taking turns within
# each repeat; a method whose run would pass PEER_BUDGET_S, projected from
# its largest N so far, is skipped as over budget. batchprobe's entry,
# direct and exit ways have a cold point first at each N (peer_cold), and
# a point loaded earlier (peer_loaded).
peer_round() {
    list=$1 sizes=$2; shift 2
    for n in $sizes; do
        [ "$n" = all ] && n=$(wc -l < "$list")
        [ "$n" -le "$(wc -l < "$list")" ] || continue
        head -n "$n" "$list" > /tmp/bp-peer-n
        todo= once=
        for m in "$@"; do
            within_budget peer "$m" "$n" "$PEER_BUDGET_S" || continue
            # A run past BUDGET_S (one link per function) runs once.
            [ "$projected" -gt "$BUDGET_S" ] && once="$once $m"
            todo="$todo $m"
        done
        for m in $todo; do
            case $m in
                peer-bp-fprobe | peer-bp-direct | peer-bp-exit)
                    peer_cold "$m" "$n" || bench_failed "$m-cold" "$n" 1
                    peer_loaded "$m" "$n" || bench_failed "$m-loaded" "$n" 1
                    ;;
            esac
        done
        for i in $(seq 1 "$PEER_RUNS"); do
            for m in $todo; do
                [ "$i" -gt 1 ] && case " $once " in *" $m "*) continue ;; esac
                peer_r=$((peer_r + 1))
                t0=$(now)
                case $m in
                    peer-bp-*) peer_bp "$m" "$n" "$peer_r" ;;
                    *) peer_bpf "$m" "$n" "$peer_r" ;;
                esac || bench_failed "$m" "$n" "$peer_r"
                ran peer "$m" "$n" "$t0"
            done
        done
    done
}

# The record peer of an exit set: a return record per call with the
# function's first argument and return value (and, as every exit record,
# the duration), its event enabled in the top tracefs instance, no reader
# (the ring buffer overwrites, as BPF's peer writes without one).
peer_bp_records() { # run
    T=/sys/kernel/tracing
    bp_ctl "d:hq/r $PEER_FUNC a=\$arg1:x64 ret=\$retval:x64\ncreate hq --exit\nenable hq\n" || return 0
    echo > $T/trace
    echo 1 > $T/tracing_on
    # Records written: the ring buffer's entries plus those it overwrote.
    echo 1 > $T/events/hq/r/enable && bench_records && bench_live peer-bp-exit-rec per_call "$1"
    echo 0 > $T/events/hq/r/enable
    echo > $T/trace
    bp_ctl "unregister hq --sync\n"
    # The kernel's own: an fprobe return event with the same arguments.
    if echo "f:kq/r $PEER_FUNC%return a=\$arg1:x64 ret=\$retval:x64" >> $T/dynamic_events 2>/dev/null; then
        echo 1 > $T/events/kq/r/enable && bench_records && bench_live peer-kernel-fexit-event per_call "$1"
        echo 0 > $T/events/kq/r/enable
        echo '-:kq/r' >> $T/dynamic_events
        echo > $T/trace
    fi
}

peer_per_call() {
    for r in $(seq 1 "$RUNS"); do
        echo "BENCH method=peer-no-probe n=1 run=$r phase=per_call ns=$(bphit $HITS)"
        for m in "bp-direct d" "bp-fprobe p" "bp-exit d --exit" "bp-exit-hist d --exit --hist"; do
            set -- $m
            name=$1 kind=$2
            shift 2
            set -- "$name" "$kind" "$*"
            bp_ctl "$2:hq/ $PEER_FUNC\ncreate hq ${3:-} --no-events\nenable hq\n" || continue
            bench_calls hq
            bench_live "peer-$1" per_call "$r"
            bp_ctl "unregister hq --sync\n"
        done
        peer_bp_records "$r"
        for m in $(./bpfpeer modes); do
            out=$(./bpfpeer run "$m" $PEER_FUNC -- bphit $HITS)
            # What bpfpeer's programs counted of bphit's calls alone: its
            # entries, and its exits where the way has an exit side.
            e=$(echo "$out" | sed -n 's/^bpfpeer: entry=\([0-9]*\).*/\1/p')
            x=$(echo "$out" | sed -n 's/^bpfpeer: .*exit=\([0-9]*\).*/\1/p')
            case $m in *ret* | *fexit* | *fsession*) [ "${x:-0}" -lt "${e:-0}" ] && e=$x ;; esac
            calls_ns=$(echo "$out" | head -1) calls_got=${e:-0}
            bench_live "peer-$m" per_call "$r"
            case $m in
                *-rb) echo "$out" | sed -n "s/^bpfpeer: .*exit=\([0-9]*\) rb_drops=\([0-9]*\).*/BENCHINFO records.$m.run$r=\1 rb_drops.$m.run$r=\2/p" ;;
            esac
        done
    done
}

peers() {
    [ -x ./bpfpeer ] && [ -r /sys/kernel/btf/vmlinux ] || { echo "BENCHINFO peers=skipped (no bpfpeer or no BTF)"; return 0; }
    peer_candidates || { part_failed "peers: no candidates (the exit set xacc on every function was refused: $(cat $BP_DEBUGFS/last_error))"; return 0; }
    peer_r=0
    peer_round /tmp/bp-peer-entry "$PEER_ENTRY_SIZES" peer-bp-fprobe peer-bp-fprobe-events peer-bp-direct peer-kprobe-multi
    multi=
    ./bpfpeer modes | grep -qx fentry-fexit-multi && multi="peer-fentry-fexit-multi peer-fsession-multi peer-fsession-rb"
    peer_round /tmp/bp-peer-exit "$PEER_EXIT_SIZES" peer-bp-exit peer-bp-exit-rec peer-kprobe-multi-ret peer-fentry-fexit $multi
    peer_per_call
}

method() { # name runner [create options] [sizes] [runs] [budget_s]
    name=$1 runner=$2 opts=${3:-} sizes=${4:-$SIZES} runs=${5:-$RUNS} budget=${6:-$BUDGET_S}
    prev_n=0 prev_s=0
    for n in $sizes; do
        # Fewer repeats where one run takes tens of seconds under TCG.
        nruns=$runs
        [ "$n" -gt 256 ] && [ "$nruns" -gt "$BIG_RUNS" ] && nruns=$BIG_RUNS
        if [ "$prev_n" -gt 0 ]; then
            projected=$(awk -v s="$prev_s" -v a="$prev_n" -v b="$n" 'BEGIN { printf "%d", s * b / a }')
            if [ "$projected" -gt "$budget" ]; then
                echo "BENCH method=$name n=$n status=over-budget projected_s=$projected"
                continue
            fi
        fi
        for r in $(seq 1 "$nruns"); do
            t0=$(now)
            $runner "$name" "$n" "$r" "$opts" || bench_failed "$name" "$n" "$r"
            t1=$(now)
        done
        prev_n=$n prev_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a + 0.999 }')
    done
}

per_hit_direct() {
    bp_ctl "d:dhit/getppid $BP_GETPPID\ncreate dhit\nenable dhit\n" || return 0
    for r in $(seq 1 "$RUNS"); do
        for mode in empty count record; do
            bp_ctl "direct dhit $mode\n" || continue
            case $mode in
                empty) bench_armed dhit; bench_live direct-$mode per_hit "$r" 1 ;;
                *) bench_calls dhit; bench_live direct-$mode per_hit "$r" ;;
            esac
        done
    done
    bp_ctl "unregister dhit --sync\nd:fhit/getppid $BP_GETPPID\ncreate fhit --fprobe\nenable fhit\n" || return 0
    for r in $(seq 1 "$RUNS"); do
        bench_calls fhit
        bench_live fprobe per_hit "$r"
    done
    bp_ctl 'unregister fhit --sync\n'
}

# At +0: `p!:` (an ftrace-based kprobe) and `p:` (the set's fprobe), each
# bare (`--bare`: an empty handler) and counting.
per_hit() {
    bphit $HITS > /dev/null    # warm up
    for r in $(seq 1 "$RUNS"); do
        echo "BENCH method=no-probe n=1 run=$r phase=per_hit ns=$(bphit $HITS)"
        for m in "bare-kprobe p! --bare" "batchprobe p!" "bare-fprobe p --bare" "batchprobe-fprobe p"; do
            set -- $m
            bp_ctl "$2:hit/getppid $BP_GETPPID\ncreate hit ${3:-} --no-events\nenable hit\n" || continue
            case $1 in
                bare-*) bench_armed hit; bench_live "$1" per_hit "$r" 1 ;;
                *) bench_calls hit; bench_live "$1" per_hit "$r" ;;
            esac
            bp_ctl "unregister hit --sync\n"
        done
    done
}

# A record per call, with the same fetch arguments (the first argument,
# the return address through $stack, the task's name as a string), into
# the ring buffer, tracing on: kprobe_events' event, fprobe events' (f:,
# where dynamic_events takes it), and batchprobe's event through an int3
# kprobe (p!:) and through its fprobe (p:); against no probe. Each is
# alone, the buffer emptied before. Then the same without arguments (the
# record's own fields only: what the arguments add, apart).
RECORD_ARGS='a1=$arg1:x64 s=+0($stack):x64 c=$comm:string'
per_record() {
    per_record_args "" "$RECORD_ARGS"
    per_record_args -noargs ""
    # Each argument alone: what each costs.
    per_record_args -arg1 'a1=$arg1:x64'
    per_record_args -stack 's=+0($stack):x64'
    per_record_args -comm 'c=$comm:string'
}

per_record_args() { # method-suffix args
    S=$BP_GETPPID x=$1 args=$2
    bphit $HITS > /dev/null    # warm up
    echo 1 > $T/tracing_on
    fevents=0
    if printf '%s\n' "f:bfr/rec $S $args" >> $T/dynamic_events 2>/dev/null; then
        fevents=1
        echo '-:bfr/rec' >> $T/dynamic_events
    fi
    echo "BENCHINFO per_record${x}_args=${args:-none} fprobe_events=$fevents"
    for r in $(seq 1 "$RUNS"); do
        echo > $T/trace
        echo "BENCH method=record-no-probe$x n=1 run=$r phase=per_record ns=$(bphit $HITS)"
        printf '%s\n' "p:bkr/rec $S $args" >> $T/kprobe_events &&
            echo 1 > $T/events/bkr/rec/enable && bench_records &&
            bench_live record-kprobe-events$x per_record "$r"
        echo 0 > $T/events/bkr/rec/enable
        echo > $T/kprobe_events
        echo > $T/trace
        if [ "$fevents" = 1 ]; then
            printf '%s\n' "f:bfr/rec $S $args" >> $T/dynamic_events
            echo 1 > $T/events/bfr/rec/enable && bench_records &&
                bench_live record-fprobe-events$x per_record "$r"
            echo 0 > $T/events/bfr/rec/enable
            echo '-:bfr/rec' >> $T/dynamic_events
            echo > $T/trace
        fi
        for m in "record-bp-kprobe p!" "record-bp-fprobe p"; do
            set -- $m
            printf '%s\n' "$2:brec/rec $S $args" "create brec --events" "enable brec" |
                bpwrite $BP_CTL &&
                echo 1 > $T/events/brec/rec/enable && bench_records &&
                bench_live "$1$x" per_record "$r"
            echo 0 > $T/events/brec/rec/enable
            bp_ctl 'unregister brec --sync\n'
            echo > $T/trace
        done
    done
}

# An int3 kprobe on getppid's path: past the fentry call (+5, or +9 after
# endbr64 under IBT), in a default set (optimized into a jump once the
# optimizer has run) and in a --noopt set (a post handler keeps it an int3
# that single-steps the probed instruction).
per_hit_offset() {
    for off in 9 5; do
        bp_ctl "p:ohit/getppid $BP_GETPPID+$off\ncreate ohit --no-events\n" 2>/dev/null && break
    done
    bp_field ohit kprobes | grep -qx 1 || return 0
    bp_ctl 'unregister ohit --sync\n'
    echo "BENCHINFO per_hit_offset=$off"
    for r in $(seq 1 "$RUNS"); do
        for opts in "" --noopt; do
            bp_ctl "p:ohit/getppid $BP_GETPPID+$off\ncreate ohit $opts --no-events\nenable ohit\n" || continue
            sleep 1   # the optimizer's pass (default set)
            bench_calls ohit
            bench_live "kprobe-offset${opts:+-noopt}" per_hit "$r"
            bp_ctl 'unregister ohit --sync\n'
        done
    done
}

# A module's functions: ext4's, on Debian's image, which loads its own ext4
# here (scripts/stock-kernel.sh puts it in the guest; the kernels we build
# have none: the part says so and does nothing). What a user types to
# count them: batchprobe's `p:` line over the module, `p:SET/ ext4:ext4_*`
# (its members fprobes: `batchprobe count 'ext4:ext4_*'`; mod-bp-fprobe),
# against bpftrace's `kprobe:ext4:ext4_*`, one kprobe_multi link on the
# same functions by name (mod-kprobe-multi: bpfpeer), and the same line as
# int3 kprobes (`p!:`, what every member was before: mod-bp-int3) and as
# direct calls (`d:`, mod-bp-direct). N: the members of batchprobe's line
# (ext4_* functions ftrace traces, each static one of a name given twice
# its own); the link takes their names, each once (got= says how many it
# attached). attach: staging write + `create; enable` (as peer_bp);
# detach: `unregister --sync`; the methods take turns within each repeat.
MOD_RUNS=${BP_BENCH_MOD_RUNS:-3}
mod_bp() { # method n run kind
    printf "$4:mq$3/ ext4:ext4_*\n" | bpwrite -t $BP_CTL > /tmp/bp-mod-stage || { cat $BP_DEBUGFS/last_error; return 1; }
    ns=$(printf "create mq$3 --no-events\nenable mq$3\n" | bpwrite -t $BP_CTL) || { cat $BP_DEBUGFS/last_error; return 1; }
    got=$(bp_set_probes mq$3)
    echo "BENCH method=$1 n=$2 run=$3 phase=attach ns=$(($(cat /tmp/bp-mod-stage) + ns)) got=$got"
    ns=$(printf "unregister mq$3 --sync\n" | bpwrite -t $BP_CTL) || return 1
    echo "BENCH method=$1 n=$2 run=$3 phase=detach ns=$ns got=$got"
}
module_peers() {
    if ! modprobe ext4 2> /dev/null || [ ! -f /sys/module/ext4/initstate ]; then
        echo "BENCHINFO modules=skipped (no ext4 module: only Debian's image has one here)"
        return 0
    fi
    # The members: what the fprobe line takes (made, not enabled).
    bp_ctl "p:mqc/ ext4:ext4_*\ncreate mqc --no-events\n" || { part_failed "modules: p:mqc/ ext4:ext4_* refused: $(cat $BP_DEBUGFS/last_error)"; return 0; }
    awk '$1 == "set" { cur = $2; next } cur == "mqc" && $1 == "fprobe" { sub(/^ext4:/, "", $2); print $2 }' \
        $BP_DEBUGFS/stats | sort -u > /tmp/bp-mod-names
    n=$(bp_field mqc fprobes)
    bp_ctl "unregister mqc --sync\n"
    echo "BENCHINFO mod_functions=$n mod_names=$(wc -l < /tmp/bp-mod-names) mod_kallsyms=$(grep -c '\[ext4\]$' /proc/kallsyms)"
    [ "$n" -gt 0 ] || { part_failed "modules: p:mqc/ ext4:ext4_* took no fprobe"; return 0; }
    for r in $(seq 1 "$MOD_RUNS"); do
        mod_bp mod-bp-fprobe "$n" "$r" p || bench_failed mod-bp-fprobe "$n" "$r"
        mod_bp mod-bp-direct "$n" "$r" d || bench_failed mod-bp-direct "$n" "$r"
        if [ -x ./bpfpeer ]; then
            cp /tmp/bp-mod-names /tmp/bp-peer-n
            peer_bpf mod-kprobe-multi "$n" "$r" || bench_failed mod-kprobe-multi "$n" "$r"
        fi
        mod_bp mod-bp-int3 "$n" "$r" 'p!' || bench_failed mod-bp-int3 "$n" "$r"
    done
}
