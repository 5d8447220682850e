#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Where a set's create and enable spend their time (`make profile-create`;
# guest side, bp.mode=profile-create, parameters bp.bench_CFG and
# bp.bench_N). CFG: fprobe (`p:` lines: create, then enable, which
# registers the fprobe), direct (`d:` lines: create attaches), exit
# (`d:` lines, `--exit`); each on the first N of the peers' entry
# candidates (bench_lib.sh: ftrace-able core-kernel functions, unique
# names), "all" by default. The lines are staged before PROFILE-START;
# between PROFILE-START and PROFILE-END only the timed write runs
# (`create; enable`), LOOPS times, the set unregistered and restaged
# between the loops with the host's sampler paused (PROFILE-PAUSE and
# PROFILE-RESUME). The module's symbols go to the host as PROFILE-SYM
# lines, the first create's time as PROFILE-FIRST, and each loop's write
# time as PROFILE-TIME. With bp.bench_FIRST=1 the first create (the one
# after insmod, which fills the module's caches) is what is sampled, and
# no loop runs. With bp.bench_EVENTS=1 each line has its event (no
# --no-events). With bp.bench_STAGE=1 each loop samples the staging writes
# of the lines instead (parsed, names resolved, checked), timed as
# PROFILE-TIME's stage_ns, and drops them again (-:pc).
. ./bench_lib.sh
CFG=${BP_BENCH_CFG:-fprobe}
N=${BP_BENCH_N:-all}
LOOPS=${BP_BENCH_LOOPS:-3}
FIRST=${BP_BENCH_FIRST:-0}
EVENTS=${BP_BENCH_EVENTS:-0}
STAGE=${BP_BENCH_STAGE:-0}
[ "$FIRST" = 1 ] && LOOPS=0
insmod "$BP_KO" || exit 1
entry_candidates
grep -i ' t ' /proc/kallsyms | cut -d' ' -f3 | sort | uniq -d > /tmp/bp-ksym-dups
grep -vxF -f /tmp/bp-ksym-dups /tmp/bp-entry-candidates > /tmp/bp-pc-all
[ "$N" = all ] && N=$(wc -l < /tmp/bp-pc-all)
head -n "$N" /tmp/bp-pc-all > /tmp/bp-pc
case "$CFG" in
    fprobe) kind=p opts=--no-events ;;
    direct) kind=d opts=--no-events ;;
    exit) kind=d opts="--exit --no-events" ;;
    *) echo "PROFILE unknown bp.bench_CFG=$CFG"; exit 1 ;;
esac
[ "$EVENTS" = 1 ] && opts=${opts%--no-events}
grep -e '\[batchprobe\]' -e '\[__builtin__' /proc/kallsyms | sed 's/^/PROFILE-SYM /'
echo "PROFILE functions=$N cfg=$CFG"
# The lines in writes of 20,000 (split once), and their staging writes.
rm -f /tmp/bp-pc-part.*
awk -v k=$kind '{ printf "%s:pc/ %s\n", k, $1 > ("/tmp/bp-pc-part." int((NR - 1) / 20000)) }' /tmp/bp-pc
stage() {
    for f in /tmp/bp-pc-part.*; do bpwrite $BP_CTL < "$f" || exit 1; done
}
# The first create walks the kernel's text symbols and finds their ftrace
# call sites: once, timed on its own, sampled only if FIRST.
stage
[ "$FIRST" = 1 ] && { sleep 1; echo PROFILE-RESUME; sleep 1; }
ns=$(printf "create pc $opts\n" | bpwrite -t $BP_CTL) || { cat $BP_DEBUGFS/last_error; exit 1; }
[ "$FIRST" = 1 ] && echo PROFILE-PAUSE
echo "PROFILE-FIRST create_ns=$ns register_ns=$(bp_timing pc register_ns) attach_ns=$(bp_timing pc attach_ns)"
bp_ctl "unregister pc --sync\n"
for i in $(seq 1 "$LOOPS"); do
    if [ "$STAGE" = 1 ]; then
        sleep 1
        echo PROFILE-RESUME
        sleep 1
        t0=$(cut -d' ' -f1 /proc/uptime)
        stage
        t1=$(cut -d' ' -f1 /proc/uptime)
        echo PROFILE-PAUSE
        echo "PROFILE-TIME loop=$i stage_ns=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1e9 }')"
        bp_ctl "-:pc\n"
        continue
    fi
    stage
    sleep 1
    echo PROFILE-RESUME
    sleep 1
    ns=$(printf "create pc $opts\nenable pc\n" | bpwrite -t $BP_CTL) || { cat $BP_DEBUGFS/last_error; exit 1; }
    echo PROFILE-PAUSE
    echo "PROFILE-TIME loop=$i ns=$ns register_ns=$(bp_timing pc register_ns) attach_ns=$(bp_timing pc attach_ns) got=$(($(bp_field pc direct) + $(bp_field pc fprobes)))"
    sleep 1
    bp_ctl "unregister pc --sync\n"
done
echo PROFILE-END
rmmod batchprobe
