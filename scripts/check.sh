#!/usr/bin/env bash
# `make check`: install what is missing, build the test kernel (cached) and the
# module, run the host tests, boot QEMU, run the selftests, judge the log.
# Ends with one line "N passed, N failed". BP_INJECT=fail|splat|hang makes
# the guest misbehave on purpose, to prove the harness catches it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t0=$(date +%s)
"$BP_ROOT/scripts/install-deps.sh"
kdir=$(KDIR= "$BP_ROOT/scripts/build-kernel.sh")

log "host tests: cargo test"
host_out=$(mktemp)
set +e
(cd "$BP_ROOT/tests" && cargo test --quiet 2>&1; cd "$BP_ROOT/tools/benchreport" && cargo test --quiet 2>&1) | tee "$host_out"
host_rc=${PIPESTATUS[0]}
set -e
host_pass=$(awk '/^test result:/ { for (i = 1; i <= NF; i++) if ($(i) ~ /^passed;?$/) s += $(i-1) } END { print s + 0 }' "$host_out")
host_fail=$(awk '/^test result:/ { for (i = 1; i <= NF; i++) if ($(i) ~ /^failed;?$/) s += $(i-1) } END { print s + 0 }' "$host_out")
rm -f "$host_out"
[ "$host_rc" -eq 0 ] || [ "$host_fail" -gt 0 ] || host_fail=1   # a build error counts as a failure

log "lint: rustfmt --check"
(cd "$BP_ROOT" && rustfmt --edition 2021 --config-path .rustfmt.toml --check src/batchprobe.rs \
    && cd tests && cargo fmt --check && cd ../tools/benchreport && cargo fmt --check) || die "lint: rustfmt would change the sources (run: make fmt)"
# clippy-driver compiles the module too: one build gives the .ko and the
# lints, and build-module.sh fails on any warning.
ko=$(KDIR="$kdir" "$BP_ROOT/scripts/build-module.sh" CLIPPY=1 CLIPPY_DRIVER=/usr/bin/clippy-driver)
mkdir -p "$BP_ROOT/out"
initrd=$BP_ROOT/out/initramfs-check.cpio.gz
"$BP_ROOT/scripts/build-initramfs.sh" "$initrd" "$ko"

logf=$BP_ROOT/out/check-console.log
smp=${BP_SMP:-2}
log "guest: booting QEMU (${BP_ACCEL:-tcg}, $smp vCPUs); console log: $logf"
set +e
BP_QUIET=1 BP_SMP=$smp BP_TIMEOUT=${BP_TIMEOUT:-900} "$BP_ROOT/scripts/run-qemu.sh" \
    "$kdir/arch/x86/boot/bzImage" "$initrd" "$logf" bp.mode=check ${BP_INJECT:+bp.inject=$BP_INJECT}
qemu_rc=$?
guest=$("$BP_ROOT/scripts/check-log.sh" "$logf" "$smp")
guest_rc=$?
set -e
[ "$qemu_rc" -eq 124 ] && log "FAIL: guest timed out (BP_TIMEOUT=${BP_TIMEOUT:-900}s)"
grep -a -E '^(ok|not ok) |^# ' "$logf" | tr -d '\r' | grep -av '^# Totals' || true
echo "host: $host_pass passed, $host_fail failed"
echo "$guest"
guest_pass=$(sed -n 's/^guest: \([0-9]*\) passed.*/\1/p' <<<"$guest")
guest_fail=$(sed -n 's/.*passed, \([0-9]*\) failed/\1/p' <<<"$guest")
pass=$((host_pass + ${guest_pass:-0}))
fail=$((host_fail + ${guest_fail:-0}))
# A broken run (splat, hang, wrong CPU count) fails even if every test said ok.
if [ "$guest_rc" -ne 0 ] || [ "$qemu_rc" -ne 0 ]; then
    [ "$fail" -gt 0 ] || fail=1
fi
log "check took $(( $(date +%s) - t0 )) s"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
