#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bp.mode=bench-cli, guest side (scripts/bench-cli.sh): what the batchprobe
# command costs over the module's own interface, side by side in one boot.
#  1. Attach: `batchprobe count '*'` (one set, an entry probe on every
#     function the kernel lets it probe, counting only) against the bare
#     control write of the same batch, `p:S/ *` + `create S --no-events` +
#     `enable S` (bpwrite -t: the write(2) alone). The command's figure is
#     the one it prints, "attached in X ms": from its start until the set
#     is armed and listed. Also each as a whole process (bptime: fork, exec,
#     the write, exit): `batchprobe apply FILE` against `bpwrite`. Pairs in
#     alternating order, all warm: the boot's first create (the module's
#     text walk, name index and BTF: the same for both) is a bare write
#     before them, reported on its own.
#  2. Reading: with such a set live, `batchprobe stats S` (read, parse,
#     sort, print) against `cat stats` (the kernel's text alone), and
#     `batchprobe stats S --json`, and `batchprobe ls` against `cat sets`
#     (the module sums every probe's hits for it), as whole processes,
#     output to tmpfs.
# Each figure is checked live: the set's probes counted (> 1000) and hits
# seen. Lines "BENCH-CLI KEY VALUE" carry the figures.
. ./bp_lib.sh
dmesg -n 1
insmod "$BP_KO" || exit 1
RUNS=${BP_BENCH_CLI_RUNS:-5}
B=/tmp/all.batch
printf 'p:bb/ *\ncreate bb --no-events\nenable bb\n' > $B
fail() { echo "bench-cli: $*"; exit 1; }
# The probes of set S, once it is listed.
probes() { bp_set_probes "$1"; }
unreg() { printf 'unregister %s --sync\n' "$1" | bpwrite "$BP_DEV" || fail "unregister $1"; }

echo "BENCH-CLI kernel $(uname -r)"
echo "BENCH-CLI nproc $(grep -c ^processor /proc/cpuinfo)"
ns=$(bpwrite -t "$BP_DEV" < $B) || fail "the first write failed: $(cat $BP_DEBUGFS/last_error)"
echo "BENCH-CLI attach_first_bare_ns run=0 $ns probes=$(probes bb)"
unreg bb
r=1
while [ $r -le "$RUNS" ]; do
    # Alternate which goes first.
    for side in $( [ $((r % 2)) -eq 1 ] && echo "bare cli" || echo "cli bare"); do
        case $side in
        bare)
            ns=$(bpwrite -t "$BP_DEV" < $B) || fail "the bare write failed: $(cat $BP_DEBUGFS/last_error)"
            n=$(probes bb)
            [ "${n:-0}" -gt 1000 ] || fail "the bare set has ${n:-0} probes"
            echo "BENCH-CLI attach_bare_ns run=$r $ns probes=$n"
            unreg bb ;;
        cli)
            # Its first line through a FIFO: the shell blocks in read(2)
            # meanwhile (a polling loop's forks would compete with the
            # create for the emulator's one thread). fd 3 stays open so
            # that the command's later stderr has a reader.
            rm -f /tmp/cnt.fifo; mkfifo /tmp/cnt.fifo
            bpfg batchprobe count '*' > /tmp/cnt.out 2> /tmp/cnt.fifo &
            pid=$!
            exec 3< /tmp/cnt.fifo
            read -r line <&3
            echo "$line" > /tmp/cnt.err
            ms=$(echo "$line" | sed -n 's/.*(attached in \([0-9.]*\) ms).*/\1/p')
            n=$(echo "$line" | sed -n 's/^Tracing \([0-9]*\) function.*/\1/p')
            [ -n "$ms" ] && [ "${n:-0}" -gt 1000 ] || fail "batchprobe count: $(cat /tmp/cnt.err)"
            [ "$n" = "$(probes "bpcount_$pid")" ] || fail "count says $n functions, sets $(probes "bpcount_$pid")"
            bphit 100 > /dev/null
            kill -INT $pid; wait $pid || fail "batchprobe count failed: $(cat /tmp/cnt.err)"
            exec 3<&-
            hits=$(awk -v f="$BP_GETPPID" '$1 == f { print $2 }' /tmp/cnt.out)
            [ "${hits:-0}" -ge 100 ] || fail "batchprobe count saw ${hits:-0} of 100 getppid calls"
            echo "BENCH-CLI attach_cli_ms run=$r $ms probes=$n" ;;
        esac
    done
    r=$((r + 1))
done

# Whole processes: the CLI's apply against bpwrite, same batch.
r=1
while [ $r -le "$RUNS" ]; do
    t=$(bptime bpwrite "$BP_DEV" < $B) || fail "bpwrite"
    echo "BENCH-CLI process_bpwrite_ns run=$r $t"
    unreg bb
    t=$(bptime batchprobe apply $B) || fail "batchprobe apply: $(cat $BP_DEBUGFS/last_error)"
    echo "BENCH-CLI process_apply_ns run=$r $t"
    [ "$r" -lt "$RUNS" ] && unreg bb
    r=$((r + 1))
done

# Reading a big set's statistics (bb is live, from the last apply).
n=$(probes bb)
bphit 100 > /dev/null
[ "$(bp_field bb hits)" -ge 100 ] || fail "set bb counted no hits"
echo "BENCH-CLI stats_probes $n"
r=1
while [ $r -le "$RUNS" ]; do
    bptime cat "$BP_DEBUGFS/stats" > /tmp/s.out || fail "cat stats"
    echo "BENCH-CLI stats_cat_ns run=$r $(tail -1 /tmp/s.out) lines=$(wc -l < /tmp/s.out)"
    bptime batchprobe stats bb > /tmp/s.out || fail "batchprobe stats"
    rows=$(grep -c '^bb ' /tmp/s.out)
    [ "$rows" -eq "$n" ] || fail "batchprobe stats printed $rows rows, the set has $n probes"
    echo "BENCH-CLI stats_cli_ns run=$r $(tail -1 /tmp/s.out) rows=$rows"
    bptime cat "$BP_DEBUGFS/sets" > /tmp/s.out || fail "cat sets"
    echo "BENCH-CLI sets_cat_ns run=$r $(tail -1 /tmp/s.out)"
    bptime batchprobe ls > /tmp/s.out || fail "batchprobe ls"
    grep -q '^bb ' /tmp/s.out || fail "batchprobe ls did not list bb"
    echo "BENCH-CLI ls_cli_ns run=$r $(tail -1 /tmp/s.out)"
    bptime batchprobe stats bb --json > /tmp/s.out || fail "batchprobe stats --json"
    echo "BENCH-CLI stats_json_ns run=$r $(tail -1 /tmp/s.out) bytes=$(head -1 /tmp/s.out | wc -c)"
    r=$((r + 1))
done
unreg bb
rmmod batchprobe
dmesg -n 7
