#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: a task asleep under a return fprobe whose set is retired and freed returns safely, however many entry-only fprobes are created after it on every CPU
# requires: CONFIG_FPROBE, CONFIG_DYNAMIC_FTRACE
# speed: slow
#
# On fgraph (6.14 on: 7.3) a task that entered a function under a return
# fprobe keeps that fprobe's address on its shadow stack while it sleeps,
# and on return fprobe_return() calls the exit_handler of whatever fprobe is
# registered at that address by then, without checking it has one. When
# batchprobe freed a set's return side and the next set's entry-only side
# was allocated at the same address (same type, same kmalloc cache), the
# sleeper's return called NULL: "BUG: kernel NULL pointer dereference",
# RIP 0x0, fprobe_return+0x148 (Debian's 7.3.4 image: 5 oopses in 6 rounds;
# distro-7.3: 2 in 6). Return sides now live in vmalloc memory, at the
# start of their allocation, entry sides in vmalloc memory half a page in
# (src/fprobe.rs, "Stale return frames"), so one can never take the
# other's address, nor an entry side a freed kmalloc'ed fprobe of another
# user's. Each round here: four sets with a return fprobe on ppoll, a
# sleeper inside ppoll under all four, the sets retired and (after RCU's
# lazy flush) freed, then eight sets of entry-only fprobes created from
# each CPU in turn, so that whatever that CPU's allocator freed last is
# handed out again; then a signal wakes the sleeper. The BPF rounds put
# the sleeper under a BPF kretprobe.multi link instead (its return fprobe
# in the kmalloc'ed link, the size class an entry side had in kmalloc),
# detached before the entry-only sets are made. Through 6.13 (a rethook
# per fprobe) the rounds must be as quiet.
. ./bp_lib.sh
ROUNDS=5
BPF_ROUNDS=3
ktap_plan $((3 + 2 * ROUNDS + 2 * BPF_ROUNDS))
SPLATS='Oops|fprobe_return'
s0=$(bp_kernel_warnings "$SPLATS")
cpus=$(nproc)
bp_load
# Each return set must be fprobe-served (not a kretprobe): the case at stake.
ktap_check "return_probes_are_fprobes" sh -c ". ./bp_lib.sh; bp_ctl 'r:probe/r __x64_sys_ppoll\ncreate probe\n' && test \"\$(bp_probe_kind probe r)\" = fretprobe && bp_ctl 'unregister probe --sync\n'"

# entry_sets R: eight sets of entry-only fprobes created from each CPU.
entry_sets() {
    cpu=0
    while [ $cpu -lt "$cpus" ]; do
        w=""
        for e in 1 2 3 4 5 6 7 8; do
            w="${w}p:ent${1}_${cpu}_$e/x vfs_getattr\ncreate ent${1}_${cpu}_$e\nenable ent${1}_${cpu}_$e\n"
        done
        taskset -c $cpu sh -c ". ./bp_lib.sh; bp_ctl '$w'" || return 1
        cpu=$((cpu + 1))
    done
}

round() {
    r=$1 w=""
    for a in 1 2 3 4; do w="${w}r:ret${r}_$a/r __x64_sys_ppoll\ncreate ret${r}_$a\nenable ret${r}_$a\n"; done
    bp_ctl "$w" || return 1
    # Inside ppoll under all four return fprobes until SIGTERM wakes it.
    bpsleep 600000 &
    sleeper=$!
    usleep 500000
    w=""
    for a in 1 2 3 4; do w="${w}unregister ret${r}_$a\n"; done
    bp_ctl "${w}flush\n" || return 1
    # The sides are freed by call_rcu after the teardown; with RCU_LAZY
    # (Debian's image) that can wait up to 10 s.
    sleep 11
    entry_sets "$r" || return 1
    # The sleeper wakes, ppoll returns through fprobe_return, then the
    # signal kills it: status 143 (an oops in the return kills it with
    # SIGSEGV or SIGKILL instead).
    kill -TERM $sleeper
    wait $sleeper
    st=$?
    [ $st -eq 143 ] || { echo "sleeper ended with status $st"; return 1; }
    # An oops's report may still be on its way to the log.
    usleep 300000
    bp_unregister_all > /dev/null
}
# bpf_round R: the sleeper enters ppoll under a BPF kretprobe.multi link
# (bpfpeer attaches it around a shell that starts the sleeper, and
# detaches it when the shell ends); the link is freed, then the entry-only
# sets are made, then the sleeper wakes. It is not this shell's child: it
# must be gone, killed by the signal, within 5 s.
bpf_round() {
    rm -f /tmp/bp-stale-sleeper
    ./bpfpeer run kprobe-multi-ret __x64_sys_ppoll -- \
        sh -c 'bpsleep 600000 & echo $! > /tmp/bp-stale-sleeper; usleep 500000' \
        > /tmp/bp-stale-peer.out 2>&1 || { sed 's/^/# bpfpeer: /' /tmp/bp-stale-peer.out; return 1; }
    sleeper=$(cat /tmp/bp-stale-sleeper)
    grep -q ppoll "/proc/$sleeper/stack" 2>/dev/null || grep -q ppoll "/proc/$sleeper/wchan" 2>/dev/null ||
        echo "# sleeper $sleeper: not seen in ppoll ($(cat /proc/$sleeper/wchan 2>/dev/null))"
    sleep 11
    entry_sets "b$1" || return 1
    kill -TERM "$sleeper"
    n=0
    while [ -d "/proc/$sleeper" ] && [ $n -lt 25 ]; do usleep 200000; n=$((n + 1)); done
    [ ! -d "/proc/$sleeper" ] || { echo "sleeper $sleeper still there"; return 1; }
    usleep 300000
    bp_unregister_all > /dev/null
}
i=1
while [ $i -le $ROUNDS ]; do
    ktap_check "round_${i}_sleeper_returns" round $i
    ktap_check "round_${i}_no_oops" bp_no_new_warnings "$s0" "$SPLATS"
    i=$((i + 1))
done
i=1
while [ $i -le $BPF_ROUNDS ]; do
    if [ -x ./bpfpeer ] && ./bpfpeer modes 2>/dev/null | grep -qx kprobe-multi-ret; then
        ktap_check "bpf_round_${i}_sleeper_returns" bpf_round $i
        ktap_check "bpf_round_${i}_no_oops" bp_no_new_warnings "$s0" "$SPLATS"
    else
        ktap_skip "bpf_round_${i}_sleeper_returns" "no kretprobe.multi link here (bpfpeer modes)"
        ktap_skip "bpf_round_${i}_no_oops" "no kretprobe.multi link here (bpfpeer modes)"
    fi
    i=$((i + 1))
done
ktap_check "rmmod" rmmod batchprobe
ktap_finish
