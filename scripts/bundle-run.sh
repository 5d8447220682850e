#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The runner of batchprobe's self-contained bundle (`make bundle`), installed
# in it as ./run. Usage:
#   ./run check|demo|bench [--kvm|--tcg] [--smp N] [--flavors "A B"]
#         [--tests "test_a.sh test_b.sh"] [--timeout S]
#   check  the kselftest collection on each kernel flavor (default: every
#          flavor in the bundle but bench), judged as `make check` judges it;
#          last line "N passed, N failed, N skipped"
#   demo   the seed's 256-kprobe workload through tracefs and through one set,
#          side by side; a direct set on a glob; sets/stats/last_error
#   bench  `make bench`'s guest side on the bench and distro flavors
#          (BP_BENCH_* as for make bench); raw data and the host's CPU model
#          go to the results directory, for `make bench-report FROM=DIR`
#   --kvm / --tcg  force the accelerator; by default KVM is used when
#          /dev/kvm is usable and a probe boot under it comes up, else TCG
#   --smp N  vCPUs (2); --tests: check runs only these selftests
# Everything it runs is in this directory: QEMU with its loader, libraries,
# modules and firmware, busybox for the shell tools, the kernels and their
# initramfs. Results (console logs, raw bench data) go to
# results/MODE-DATE/ next to this script.

# Run under the bundled busybox, with only its tools on PATH: nothing of the
# host is used but its kernel (and /dev/kvm).
case $0 in */*) B=${0%/*} ;; *) B=. ;; esac
B=$(cd "$B" && pwd) || exit 1
if [ "${BP_BUNDLE_SHELL:-}" != "$B" ]; then
    BP_BUNDLE_SHELL=$B PATH=$B/bin/tools exec "$B/bin/busybox" sh "$B/run" "$@"
fi
set -u
export PATH="$B/bin/tools"
export LC_ALL=C

# `run --qemu ARGS`: QEMU through the bundled loader and libraries, with the
# bundle's accelerator modules and firmware (a command, so timeout can run it).
if [ "${1:-}" = --qemu ]; then
    shift
    export QEMU_MODULE_DIR="$B/qemu/modules"
    exec "$B/qemu/lib/ld-linux-x86-64.so.2" --library-path "$B/qemu/lib" \
        "$B/qemu/bin/qemu-system-x86_64" -L "$B/qemu/share" "$@"
fi
qemu() { sh "$B/run" --qemu "$@"; }

log() { printf '[bundle] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
usage() { sed -n '3,20s/^# \{0,1\}//p' "$B/run" >&2; exit 2; }

mode=${1:-}
[ $# -gt 0 ] && shift
accel=auto smp=2 flavors= tmo= tests=
while [ $# -gt 0 ]; do
    case $1 in
        --kvm) accel=kvm ;;
        --tcg) accel=tcg ;;
        --smp) smp=${2:?--smp needs a number}; shift ;;
        --flavors) flavors=${2:?--flavors needs a list}; shift ;;
        --timeout) tmo=${2:?--timeout needs seconds}; shift ;;
        --tests) tests=${2:?--tests needs a list}; shift ;;
        *) usage ;;
    esac
    shift
done
case $mode in check|demo|bench) ;; *) usage ;; esac
case $smp in ''|*[!0-9]*) die "--smp wants a number" ;; esac

avail=$(ls "$B/kernels")
has() { [ -f "$B/kernels/$1/bzImage" ]; }
if [ -z "$flavors" ]; then
    case $mode in
        check) flavors=$(echo "$avail" | grep -vx bench | tr '\n' ' ') ;;
        demo) flavors=test ;;
        bench) flavors="bench distro" ;;
    esac
fi
for f in $flavors; do has "$f" || die "no kernel flavor $f in this bundle (it has: $(echo $avail))"; done

stamp=$(date -u +%Y%m%d-%H%M%S)
res=$B/results/$mode-$stamp
mkdir -p "$res" || die "cannot write $res"

# boot FLAVOR LOG SECONDS KERNEL-ARGS...: one guest, console to LOG.
# Exits as run-qemu.sh does: 124 (or 143) on timeout, else QEMU's status.
boot() {
    f=$1 logf=$2 secs=$3
    shift 3
    if [ "$accel" = kvm ]; then a="-accel kvm -cpu host"; else a="-accel tcg,thread=single -cpu max"; fi
    : > "$logf"
    # shellcheck disable=SC2086
    timeout -k 5 "$secs" sh "$B/run" --qemu $a -smp "$smp" -m "${BP_MEM:-1G}" \
        -kernel "$B/kernels/$f/bzImage" -initrd "$B/kernels/$f/initramfs.cpio.gz" \
        -no-reboot -display none -monitor none -vga none -nic none \
        -chardev "stdio,id=con,logfile=$logf,signal=off" -serial chardev:con \
        -append "console=ttyS0 panic=-1 loglevel=7 $*" </dev/null >/dev/null 2>"$logf.qemu-stderr"
}

# KVM when it works: /dev/kvm usable and a guest boots under it (on some
# hosts /dev/kvm opens and a stock kernel then hangs).
if [ "$accel" = auto ]; then
    accel=tcg
    if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
        accel=kvm
        if boot test "$res/kvm-probe.log" 60 bp.mode=none && grep -aq 'BATCHPROBE-GUEST-DONE' "$res/kvm-probe.log"; then
            log "KVM works here: using it"
        else
            accel=tcg
            why=$(grep -a -m1 '^qemu-system-x86_64: ' "$res/kvm-probe.log.qemu-stderr" 2>/dev/null | cut -d' ' -f2-)
            log "KVM: /dev/kvm is there but a guest did not come up under it within 60 s${why:+ (QEMU: $why)}: using TCG"
        fi
    else
        log "no usable /dev/kvm: using TCG"
    fi
fi
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
log "$mode: $accel, $smp vCPUs, host CPU: ${cpu:-unknown} ($(grep -c ^processor /proc/cpuinfo) CPUs); results in $res"
{
    echo "mode=$mode"
    echo "date=$(date -u +%Y-%m-%d)"
    echo "accel=$accel"
    echo "tcg_thread=single"
    echo "vcpus=$smp"
    echo "host_cpu=$cpu"
    echo "host_cpus=$(grep -c ^processor /proc/cpuinfo)"
    echo "host_kernel=$(uname -r)"
    echo "flavors=$flavors"
    echo "qemu=$(qemu --version | head -1)"
} > "$res/meta.txt"

case $mode in
demo)
    f=${flavors%% *}
    boot "$f" "$res/console-$f.log" "${tmo:-600}" bp.mode=demo
    tr -d '\r' < "$res/console-$f.log" | sed -n '/BATCHPROBE-GUEST-START/,/BATCHPROBE-GUEST-DONE/p' \
        | grep -av -e '^BATCHPROBE-GUEST-' -e '^\[ *[0-9]*\.[0-9]*\] '
    grep -aq 'BATCHPROBE-GUEST-DONE rc=0' "$res/console-$f.log" || die "demo failed (see $res/console-$f.log)"
    ;;
check)
    pass=0 fail=0 skip=0 broken=0
    for f in $flavors; do
        logf=$res/console-$f.log
        # As make check's limits (scripts/check.sh): the debug kernels (any
        # release) and Debian's image 3600 s, the others 1800 s.
        case $f in debug* | stock*) secs=${tmo:-3600} ;; *) secs=${tmo:-1800} ;; esac
        log "check ($f kernel): booting, limit ${secs}s"
        boot "$f" "$logf" "$secs" bp.mode=check ${tests:+bp.tests=$(echo $tests | tr ' ' ,)}
        qrc=$?
        out=$(sh "$B/check-log.sh" "$logf" "$smp")
        grc=$?
        echo "[$f] $out"
        p=$(echo "$out" | sed -n 's/^guest: \([0-9]*\) passed.*/\1/p')
        n=$(echo "$out" | sed -n 's/.*passed, \([0-9]*\) failed.*/\1/p')
        s=$(echo "$out" | sed -n 's/.*failed, \([0-9]*\) skipped.*/\1/p')
        pass=$((pass + ${p:-0})) fail=$((fail + ${n:-0})) skip=$((skip + ${s:-0}))
        [ -s "$logf.skips" ] && sed "s/^/[$f] skipped: /" "$logf.skips"
        if [ "$qrc" -ne 0 ] || [ "$grc" -ne 0 ]; then
            broken=$((broken + 1))
            log "FAIL: the $f guest run is broken (qemu status $qrc; see $logf)"
        fi
    done
    [ "$broken" -eq 0 ] || [ "$fail" -gt 0 ] || fail=$broken
    echo "$pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ] || exit 1
    ;;
bench)
    args=bp.mode=bench
    for v in RUNS SIZES BUDGET_S DIRECT_SIZES DIRECT_RUNS BIG_RUNS ENTRY_SIZES EXIT_SIZES PEER_ENTRY_SIZES PEER_EXIT_SIZES PEER_BUDGET_S SEED_ARGS_SIZES SEED_ARGS_RUNS EVENT_SIZES EVENT_RUNS ONLY; do
        eval "val=\${BP_BENCH_$v:-}"
        # shellcheck disable=SC2154
        [ -n "$val" ] && args="$args bp.bench_$v=$(echo "$val" | tr ' ' ,)"
    done
    for f in $flavors; do
        mkdir -p "$res/$f"
        logf=$res/$f/console.log
        log "bench ($f kernel): booting, limit ${tmo:-3600}s"
        boot "$f" "$logf" "${tmo:-3600}" $args
        grep -aq '^BENCHDONE' "$logf" || die "bench ($f): the guest did not finish (see $logf)"
        sh "$B/check-log.sh" "$logf" "$smp" --no-tests >/dev/null \
            || die "bench ($f): kernel splat or wrong CPU count in $logf"
        tr -d '\r' < "$logf" | grep -a '^BENCH' > "$res/$f/raw.txt"
    done
    log "raw data in $res; the report: make bench-report FROM=$res (in a batchprobe checkout)"
    ;;
esac
