#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make check` and `make check-all`: install what is missing, build each kernel flavor (cached),
# run the host tests once, then for each flavor build the module, boot QEMU,
# run the selftests and judge the log. Ends with one line "N passed, N failed,
# N skipped" (each skip listed above it with its reason) totalled over the
# host tests and every flavor. BP_FLAVORS picks the flavors (default:
# "test stock-7.3", 6.12's test flavor and Debian's own 7.3 image; with
# BP_CHECK_ALL=1, `make check-all`, "test debug distro-7.3 debug-7.3
# stock-7.3": 6.12's and 7.3's debug flavors and 7.3's distro flavor too;
# NAME-KVER is flavor NAME on release KVER). The last lines name the
# flavors not run. 6.12's distro flavor runs when
# asked for (BP_FLAVORS="... distro"): what it adds to the others, a
# distro-like configuration, distro-7.3 and Debian's own image check on 7.3,
# and 6.12's probe code runs on test and debug; with it the check ran 80 min
# on a 2-core machine here (2026-12-03), too close to CI's 90. stock-7.3 is
# not built here: scripts/stock-kernel.sh prepares its tree and builds the modules in a
# trixie chroot with the image's GCC and rustc, and the guest boots Debian's
# own vmlinuz (it needs root: without, the default leaves it out, saying so).
# BP_TESTS a subset of the selftests (names
# of selftests/test_*.sh, space-separated). BP_INJECT=fail|splat|hang makes
# the guest misbehave on purpose, to prove the harness catches it.
# BP_SPEED: which programs boot ("normal", `make check`'s default: all but
# those whose header says `# speed: slow`, or `# speed: slow on FLAVOR...`
# naming the guest's flavor; "all", `make check-all`'s).
# Where the test flavor runs, the race, stress, fuzz and unload programs
# (selftests/races; those of BP_TESTS only, if set) run again on its kernel
# with BP_RACE_SMP vCPUs (`make check-all`: 4; `make check`: 0, not at all),
# a run of its own named "test@smp4". The last lines name what was not run.
# What each step took goes to out/check-times.txt (CHECK lines, read by
# tools/benchreport: `make check-times-save` keeps it under bench/results/).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t0=$(date +%s)
mkdir -p "$BP_ROOT/out"
times=$BP_ROOT/out/check-times.txt
{
    echo "# make check's times (scripts/check.sh), $(date -u '+%Y-%m-%d %H:%M') UTC"
    echo "# commit $(git -C "$BP_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$BP_ROOT" diff --quiet HEAD 2>/dev/null || echo ' (with local changes)')"
    echo "# host: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
} > "$times"
# step NAME SECONDS [NOTE]: a CHECK line of the times file.
step() { echo "CHECK step $*" >> "$times"; }
# The programs each run boots: those of BP_TESTS if set; else with
# BP_SPEED=normal (`make check`'s default) all but those whose header says
# `# speed: slow` (KUnit's attribute), or `# speed: slow on FLAVOR...`
# naming the run's flavor (docs/testing.md says which and why); with
# BP_SPEED=all (`make check-all`'s) every one.
if [ "${BP_CHECK_ALL:-0}" = 1 ]; then speed=${BP_SPEED:-all}; else speed=${BP_SPEED:-normal}; fi
case $speed in normal|all) ;; *) die "BP_SPEED must be normal or all, not '$speed'" ;; esac
[ -z "${BP_TESTS:-}" ] || speed=all
# slow_on FLAVOR: the programs BP_SPEED=normal leaves out on FLAVOR (as
# guest-init.sh reads the marks), space-separated.
slow_on() {
    local t mark
    [ "$speed" = normal ] || return 0
    for t in "$BP_ROOT"/selftests/test_*.sh; do
        mark=$(sed -n 's/^# speed: //p' "$t" | head -1)
        case "$mark" in
            slow) printf '%s ' "${t##*/}" ;;
            "slow on "*) case " ${mark#slow on } " in *" $1 "*) printf '%s ' "${t##*/}" ;; esac ;;
        esac
    done
}
ts=$(date +%s)
"$BP_ROOT/scripts/install-deps.sh"
step deps $(( $(date +%s) - ts ))
# Every kernel flavor first, so that a broken build fails before any boot.
# `make check` (what a newcomer runs): 6.12's test kernel and Debian's own
# 7.3 image; `make check-all` (BP_CHECK_ALL=1): every flavor.
all_flavors="test debug distro-7.3 debug-7.3 stock-7.3"
if [ "${BP_CHECK_ALL:-0}" = 1 ]; then default=$all_flavors; else default="test stock-7.3"; fi
flavors=${BP_FLAVORS:-$default}
if [ -z "${BP_FLAVORS:-}" ] && [ "$(id -u)" -ne 0 ]; then
    log "stock-7.3 left out: preparing Debian's image needs root (debootstrap, chroot)"
    flavors=${flavors% stock-7.3}
fi
left_out=
for f in $all_flavors; do
    case " $flavors " in *" $f "*) ;; *) left_out="$left_out $f" ;; esac
done
# Debian's own image (stock-kernel.sh's release, 7.3.4+deb13-amd64).
is_stock() { [ "$(flavor_base "$1")" = stock ]; }
declare -A kdirs images
echo "CHECK flavors $flavors" >> "$times"
# Debian's tree is prepared (mostly downloads, debootstrap and dpkg in its
# chroot) while the other kernels build: on a cold 2-core machine here one
# after the other took 667 s for the test kernel, then 231 s for Debian's
# tree (3ab765b); side by side, 693 s for both (5ed60d3, 2026-12-07).
# Its log goes to a file, printed whole once it ends (not into the builds').
# Should the check stop first (a build failed, Ctrl-C), the preparation
# (its own process group) stops with it.
kernels_t0=$(date +%s)
stock_out=$(mktemp -d)
stock_pids=
stop_stock() {
    local p
    for p in $stock_pids; do kill -TERM -- "-$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$stock_out"
}
trap stop_stock EXIT
for f in $flavors; do
    is_stock "$f" || continue
    [ "$(flavor_kver "$f")" = 7.3 ] || die "flavor $f: only Debian's 7.3 image is known (stock-7.3)"
    log "kernel: preparing Debian's tree for $f beside the builds (its log: after them)"
    setsid bash -c 'ts=$(date +%s); rc=0
        "$1/scripts/stock-kernel.sh" tree > "$2.tree" 2> "$2.log" || rc=$?
        echo "$rc $(( $(date +%s) - ts ))" > "$2.rc"' _ "$BP_ROOT" "$stock_out/$f" &
    stock_pids="$stock_pids $!"
done
for f in $flavors; do
    ts=$(date +%s)
    if is_stock "$f"; then
        continue
    else
        kdirs[$f]=$(KDIR= BP_KERNEL_FLAVOR=$f "$BP_ROOT/scripts/build-kernel.sh")
        # Built now, or found in the cache (its stamp older than this step).
        how=cached
        [ "$(stat -c %Y "${kdirs[$f]}/.batchprobe-built")" -lt "$ts" ] || how=built
        step "kernel-$f" $(( $(date +%s) - ts )) "$how"
    fi
done
wait
for f in $flavors; do
    is_stock "$f" || continue
    cat "$stock_out/$f.log" >&2 2>/dev/null || true
    read -r rc secs < "$stock_out/$f.rc" || die "flavor $f: preparing Debian's tree did not end"
    [ "$rc" -eq 0 ] || die "flavor $f: scripts/stock-kernel.sh tree failed (status $rc; its log is just above)"
    kdirs[$f]=$(cat "$stock_out/$f.tree")
    step "kernel-$f" "$secs" prepared
done
stock_pids=
trap - EXIT
rm -rf "$stock_out"
# The kernels' wall time (Debian's tree prepared beside the builds).
step kernels $(( $(date +%s) - kernels_t0 ))

export CARGO_INCREMENTAL=0   # incremental caches only slow a one-shot build
ts=$(date +%s)
log "host tests: cargo test"
host_out=$(mktemp)
set +e
# Both crates' status counts: a crate that does not compile prints no
# "test result" line, and must fail the check all the same.
(rc=0
 cd "$BP_ROOT/tests" && cargo test --quiet 2>&1 || rc=1
 cd "$BP_ROOT/tools/benchreport" && cargo test --quiet 2>&1 || rc=1
 cd "$BP_ROOT/tools/batchprobe" && cargo test --quiet 2>&1 || rc=1
 exit $rc) | tee "$host_out"
host_rc=${PIPESTATUS[0]}
set -e
# count FILE WORD: the sum over cargo's "test result" lines of the number
# before WORD (passed, failed, ignored).
count() { awk -v w="$2" '/^test result:/ { for (i = 1; i <= NF; i++) if ($(i) ~ "^" w ";?$") s += $(i-1) } END { print s + 0 }' "$1"; }
host_pass=$(count "$host_out" passed) host_fail=$(count "$host_out" failed) host_skip=$(count "$host_out" ignored)
[ "$host_rc" -eq 0 ] || [ "$host_fail" -gt 0 ] || host_fail=1   # a build error counts as a failure
# The lints (tests/tests/lint_*.rs) read the sources as text to hold a rule:
# a broken one fails the check, a kept one is no pass (docs/testing.md).
log "lints: cargo test --features lints --test 'lint_*'"
set +e
(cd "$BP_ROOT/tests" && cargo test --quiet --features lints --test 'lint_*' 2>&1) | tee "$host_out"
lint_rc=${PIPESTATUS[0]}
set -e
lint_kept=$(count "$host_out" passed) lint_broken=$(count "$host_out" failed)
[ "$lint_rc" -eq 0 ] || [ "$lint_broken" -gt 0 ] || lint_broken=1
rm -f "$host_out"

log "lint: rustfmt --check"
(cd "$BP_ROOT" && rustfmt --edition 2021 --config-path .rustfmt.toml --check src/batchprobe.rs \
    && rustfmt --edition 2021 --config-path .rustfmt.toml --check clients/rust/bpclient_rs.rs \
    && cd tests && cargo fmt --check && cd ../tools/benchreport && cargo fmt --check \
    && cd ../batchprobe && cargo fmt --check) || die "lint: rustfmt would change the sources (run: make fmt)"
log "lint: clippy on the batchprobe command"
(cd "$BP_ROOT/tools/batchprobe" && cargo clippy --quiet --all-targets -- -D warnings) \
    || die "lint: clippy warns on tools/batchprobe (run: cd tools/batchprobe && cargo clippy --all-targets)"
step host-tests $(( $(date +%s) - ts ))
smp=${BP_SMP:-2}
accel=${BP_ACCEL:-tcg}
# The guests to boot: one per flavor, and the race programs again on the
# test kernel with more vCPUs (FLAVOR@smpN: flavor FLAVOR's kernel, module
# and initramfs, N vCPUs, those programs only).
# `make check` leaves them to `make check-all`, as it leaves the slow programs.
if [ "${BP_CHECK_ALL:-0}" = 1 ]; then race_smp=${BP_RACE_SMP:-4}; else race_smp=${BP_RACE_SMP:-0}; fi
race_tests=$(grep -v '^#' "$BP_ROOT/selftests/races" | tr '\n' ' ')
if [ -n "${BP_TESTS:-}" ]; then
    race_tests=$(for t in $race_tests; do case " $BP_TESTS " in *" $t "*) echo "$t" ;; esac; done | tr '\n' ' ')
fi
runs=$flavors
case " $flavors " in
    *" test "*) [ "$race_smp" -gt 0 ] && [ -n "${race_tests// /}" ] && runs="$runs test@smp$race_smp" ;;
esac
picked=$speed
[ -z "${BP_TESTS:-}" ] || picked=tests   # BP_TESTS names them
# How many programs were left out on some flavor.
slow_any=$(for f in $flavors; do slow_on "$f"; done | tr ' ' '\n' | sort -u | grep -c . || true)
echo "CHECK programs speed=$picked slow_left_out=$slow_any" >> "$times"
run_flavor() { echo "${1%@smp*}"; }
run_smp() { case $1 in *@smp*) echo "${1##*@smp}" ;; *) echo "$smp" ;; esac; }
run_tests() { case $1 in *@smp*) echo "$race_tests" ;; *) echo "${BP_TESTS:-}" ;; esac; }
# Every flavor's module, clients and initramfs first (they use every core),
# then the guests, several at once: under TCG with one thread (run-qemu.sh's
# default) a guest keeps one host core busy, under KVM or multi-threaded TCG
# one per vCPU. BP_JOBS overrides how many boot at once. On a 2-core machine
# the debug guest runs beside the other two in turn: on 2026-12-01 it ran
# 1801 s while test (723 s) and distro (809 s) ran beside it, where one
# after another they took over 3000 s (a cold CI run builds three kernels
# before them).
ts=$(date +%s)
for f in $flavors; do
    kdir=${kdirs[$f]}
    if is_stock "$f"; then
        # Built in the chroot, with the image's GCC and rustc 1.85.1 (no
        # clippy there: the 7.3 flavors above lint the same source).
        images[$f]=$("$BP_ROOT/scripts/stock-kernel.sh" initramfs "$BP_ROOT/out/initramfs-check-$f.cpio.gz")
        continue
    fi
    images[$f]=$kdir/arch/x86/boot/bzImage
    # clippy-driver compiles the module too: one build gives the .ko and the
    # lints, and build-module.sh fails on any warning. Each flavor's build
    # replaces the last one's .ko, so its initramfs is packed right after it.
    ko=$(KDIR="$kdir" "$BP_ROOT/scripts/build-module.sh" CLIPPY=1 CLIPPY_DRIVER=/usr/bin/clippy-driver)
    # The in-kernel API's sample clients, against this module's Module.symvers.
    clients=$(KDIR="$kdir" "$BP_ROOT/scripts/build-clients.sh" CLIPPY=1 CLIPPY_DRIVER=/usr/bin/clippy-driver)
    BP_EXTRA_KO="$clients" "$BP_ROOT/scripts/build-initramfs.sh" "$BP_ROOT/out/initramfs-check-$f.cpio.gz" "$ko" "$kdir"
done
step builds $(( $(date +%s) - ts ))
jobs=$(guest_jobs "$smp" "$accel")
# The longest guests first, so that the others fill the other cores beside
# them: the debug flavors (any release), then the stock image (a big kernel:
# its guest ran 541 s alone on an idle host here on 2026-12-02), then the
# rest in the order given.
long() { case "$(flavor_base "$(run_flavor "$1")")" in debug|stock) return 0 ;; *) return 1 ;; esac; }
order=
for f in $runs; do [ "$(flavor_base "$f")" != debug ] || order="$order $f"; done
for f in $runs; do ! is_stock "$f" || order="$order $f"; done
for f in $runs; do long "$f" || order="$order $f"; done
run_guest() {
    local r=$1 f tmo locked logf=$BP_ROOT/out/check-console-$1.log t=$(date +%s) rc=0 n tests
    f=$(run_flavor "$r") n=$(run_smp "$r") tests=$(run_tests "$r")
    # A hang guard, not a time budget (each program also has the kselftest
    # runner's own 900 s limit). A test guest beside a kernel build once ran
    # over 900 s on a 2-core machine here (2026-12-01), so the others get
    # 1800 s; the debug kernel (KASAN, kmemleak, lockdep) runs the same
    # selftests about 3x slower under TCG: 1750 s, 1801 s and 2207 s beside
    # the other guests in three full runs here (2026-12-01), so it gets
    # 3000 s; on 2026-12-03, on a slower 2-core machine, debug took 2509 s
    # and debug-7.3 2820 s side by side in a clean-clone check, so they get
    # 3600 s. BP_TIMEOUT overrides both.
    # The stock image gets as long as debug: it ran 541 s alone, and runs
    # beside the debug guests here.
    if long "$f"; then tmo=${BP_TIMEOUT:-3600}; else tmo=${BP_TIMEOUT:-1800}; fi
    # A kernel with the lockdown LSM and its own signing key boots locked
    # down, as on a Secure Boot machine (its modules are signed).
    locked=$(kernel_lockdown_args "${kdirs[$f]}")
    log "guest ($r: $f kernel): booting QEMU ($accel, $n vCPUs, limit ${tmo}s${locked:+, $locked}); console log: $logf"
    date +%s > "$logf.start"
    tests=$(echo $tests)
    BP_QUIET=1 BP_SMP=$n BP_TIMEOUT=$tmo "$BP_ROOT/scripts/run-qemu.sh" \
        "${images[$f]}" "$BP_ROOT/out/initramfs-check-$f.cpio.gz" "$logf" \
        $locked bp.mode=check ${BP_INJECT:+bp.inject=$BP_INJECT} ${tests:+bp.tests=${tests// /,}} \
        bp.speed=$speed bp.flavor=$f || rc=$?
    [ "$rc" -eq 124 ] && log "FAIL: $r guest timed out (after ${tmo}s)"
    log "guest ($r: $f kernel): done in $(( $(date +%s) - t )) s (QEMU status $rc)"
    date +%s > "$logf.end"
    echo "$rc" > "$logf.qemu-rc"
}
# Progress while the guests run: per flavor, the selftest programs done of
# the total, the programs failed so far and the time elapsed. One line
# rewritten in place on a terminal (every 2 s), a line a minute otherwise
# (a CI log).
progress_line() {
    local f logf line="" counts t0 el
    for f in $order; do
        logf=$BP_ROOT/out/check-console-$f.log
        if [ ! -f "$logf.start" ]; then line="$line | $f: waiting"; continue; fi
        t0=$(cat "$logf.start")
        if [ -f "$logf.qemu-rc" ]; then el=$(cat "$logf.end" 2>/dev/null || date +%s); else el=$(date +%s); fi
        el=$((el - t0))
        # One pass over the log: programs done, failed, and the plan.
        counts=$(tr -d '\r' < "$logf" 2>/dev/null | awk '
            /^(ok|not ok) [0-9]+ selftests: / { done++ }
            /^not ok [0-9]+ selftests: / { fails++ }
            total == "" && /^1\.\.[0-9]+$/ { total = substr($0, 4) }
            END { printf "%d/%s programs, %d failed", done, (total == "" ? "?" : total), fails }')
        line="$line | $f: $counts, $((el / 60))m$(printf %02d $((el % 60)))s"
        [ -f "$logf.qemu-rc" ] && line="$line (done)"
    done
    echo "${line# | }"
}
progress_monitor() {
    local n=0
    while :; do
        if [ -t 2 ]; then
            printf '\r\033[K[batchprobe] %s' "$(progress_line)" >&2
            sleep 2
        else
            sleep 60
            n=$((n + 1))
            log "progress after ${n}m: $(progress_line)"
        fi
    done
}
log "guests: $(wc -w <<<"$order") to run, $jobs at a time:$order"
echo "CHECK guests accel=$accel tcg_thread=${BP_TCG_THREAD:-single} vcpus=$smp at_once=$jobs runs=$(tr ' ' ',' <<<"${order# }")" >> "$times"
ts=$(date +%s)
for f in $order; do
    rm -f "$BP_ROOT/out/check-console-$f.log".{qemu-rc,start,end}
done
progress_monitor &
monitor=$!
run_at_most "$jobs" run_guest $order
kill "$monitor" 2>/dev/null || true
wait "$monitor" 2>/dev/null || true
[ -t 2 ] && echo >&2
log "guests done: $(progress_line)"
step guests $(( $(date +%s) - ts ))
guest_pass=0 guest_fail=0 guest_skip=0 broken=0
for f in $runs; do
    logf=$BP_ROOT/out/check-console-$f.log
    qemu_rc=$(cat "$logf.qemu-rc" 2>/dev/null || echo 1)
    set +e
    guest=$("$BP_ROOT/scripts/check-log.sh" "$logf" "$(run_smp "$f")" 2>"$logf.problems")
    guest_rc=$?
    # A skip selftests/skips.expected does not allow for this flavor is a
    # failure: it hides a test for a reason the kernel does not explain.
    unexpected=$("$BP_ROOT/scripts/check-skips.sh" "$BP_ROOT/selftests/skips.expected" "$(run_flavor "$f")" "$logf.skips")
    [ $? -le 1 ] || die "check-skips.sh failed on $logf.skips"
    set -e
    if [ -n "$unexpected" ]; then
        guest_fail=$((guest_fail + $(grep -c . <<<"$unexpected")))
        sed 's/^/FAIL: a skip selftests\/skips.expected does not allow: /' <<<"$unexpected" >> "$logf.problems"
    fi
    cat "$logf.problems" >&2
    grep -a -E '^(ok|not ok) |^# ' "$logf" | tr -d '\r' | grep -av '^# Totals' | sed "s/^/[$f] /" || true
    echo "[$f] $guest"
    p=$(sed -n 's/^guest: \([0-9]*\) passed.*/\1/p' <<<"$guest")
    n=$(sed -n 's/.*passed, \([0-9]*\) failed.*/\1/p' <<<"$guest")
    s=$(sed -n 's/.*failed, \([0-9]*\) skipped.*/\1/p' <<<"$guest")
    guest_pass=$((guest_pass + ${p:-0})) guest_fail=$((guest_fail + ${n:-0}))
    guest_skip=$((guest_skip + ${s:-0}))
    st=$(cat "$logf.start" 2>/dev/null || echo 0) en=$(cat "$logf.end" 2>/dev/null || echo 0)
    echo "CHECK guest $f $((en - st)) passed=${p:-0} failed=${n:-0} skipped=${s:-0} qemu_status=$qemu_rc" >> "$times"
    # Each program's own time (bp_lib.sh's ktap_finish: "# took N s"), which
    # says which programs are slow (docs/testing.md).
    [ ! -f "$logf" ] || tr -d '\r' < "$logf" | awk -v r="$f" '
        /^# selftests: [^ ]+: [^ ]+$/ { name = $4 }
        /^# # took [0-9.]+ s$/ && name != "" { print "CHECK program " r " " name " " $4; name = "" }' >> "$times"
    # A broken run (splat, hang, wrong CPU count) fails even if every test said ok.
    if [ "$guest_rc" -ne 0 ] || [ "$qemu_rc" -ne 0 ]; then
        broken=$((broken + 1))
        log "FAIL: the $f guest run is broken (see $logf)"
    fi
done
echo "host: $host_pass passed, $host_fail failed, $host_skip skipped (#[ignore])"
echo "lints (rules read in the source text; not counted as passes): $lint_kept kept, $lint_broken broken"
# Every skip, with its reason (a skip is not a pass: read them).
for f in $runs; do
    [ -s "$BP_ROOT/out/check-console-$f.log.skips" ] || continue
    sed "s/^/[$f] skipped: /" "$BP_ROOT/out/check-console-$f.log.skips"
done
# What failed, again at the end, where a log's tail shows it; each guest's
# first kernel splat last of all (its message and first frames: what a
# broken run's long list of failed cases would push out of that tail).
for f in $runs; do
    [ -s "$BP_ROOT/out/check-console-$f.log.problems" ] || continue
    sed "s/^/[$f] /" "$BP_ROOT/out/check-console-$f.log.problems"
done
for f in $runs; do
    [ -s "$BP_ROOT/out/check-console-$f.log.first-splat" ] || continue
    echo "[$f] the first kernel splat in out/check-console-$f.log, again:"
    sed "s/^/[$f] /" "$BP_ROOT/out/check-console-$f.log.first-splat"
done
pass=$((host_pass + guest_pass))
fail=$((host_fail + lint_broken + guest_fail))
[ "$broken" -eq 0 ] || [ "$fail" -gt 0 ] || fail=$broken
log "check took $(( $(date +%s) - t0 )) s"
echo "CHECK host passed=$host_pass failed=$((host_fail + lint_broken)) skipped=$host_skip" >> "$times"
echo "CHECK total $(( $(date +%s) - t0 ))" >> "$times"
echo "CHECK result passed=$pass failed=$fail skipped=$((host_skip + guest_skip))" >> "$times"
[ -z "$left_out" ] || log "not run:$left_out (make check-all runs every flavor; BP_FLAVORS='...' make check the ones named)"
for f in $flavors; do
    slow=$(slow_on "$f")
    [ -z "$slow" ] || log "not run on $f, slow there ($(wc -w <<<"$slow") programs, \`# speed: slow\`): ${slow% } (make check-all runs them; BP_SPEED=all make check too)"
done
case " $flavors " in
    *" test "*) [ "$race_smp" -gt 0 ] || [ -z "${race_tests// /}" ] \
        || log "not run: the race programs (selftests/races) on the test kernel with 4 vCPUs, test@smp4 (BP_RACE_SMP=4 runs them; make check-all does by default)" ;;
esac
echo "$pass passed, $fail failed, $((host_skip + guest_skip)) skipped"
[ "$fail" -eq 0 ]
