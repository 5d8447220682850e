#!/usr/bin/env bash
# Judge a guest console log. Usage: check-log.sh LOG EXPECTED_CPUS [--no-tests]
# Prints "guest: P passed, F failed" and one line per problem found;
# exits non-zero when the guest did not finish, saw the wrong CPU count,
# reported a failing test, or the kernel printed a splat - even if every
# test said ok.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

logf=$1 cpus=$2 tests=${3:-}
problems=0
problem() { log "FAIL: $*"; problems=$((problems + 1)); }

# Kernel splats. "Call Trace:" catches stack dumps that carry no other banner.
splat_re='WARNING:|BUG:|Oops|KASAN|possible recursive locking|possible circular locking|suspicious RCU usage|suspected memory leak|kmemleak: suspected|unreferenced object|Call Trace:|Kernel panic|general protection fault|self-detected stall|INFO: task .* blocked|UBSAN'
if grep -aEn "$splat_re" "$logf" >"$logf.splats"; then
    problem "kernel splat in the console log ($(wc -l <"$logf.splats") lines), first ones:"
    head -5 "$logf.splats" | sed 's/^/    /' >&2
fi

start=$(grep -a 'BATCHPROBE-GUEST-START' "$logf" | tail -1)
if [ -z "$start" ]; then
    problem "guest never reached /init (see $logf)"
else
    seen=$(sed -n 's/.*nproc=\([0-9]*\).*/\1/p' <<<"$start")
    [ "$seen" = "$cpus" ] || problem "guest sees $seen CPUs, asked for $cpus"
fi
grep -aq 'BATCHPROBE-GUEST-DONE' "$logf" \
    || problem "guest did not finish its run (hang, crash or timeout; see $logf)"

if [ "$tests" = --no-tests ]; then
    [ "$problems" -eq 0 ]
    exit
fi
totals=$(grep -a '^# Totals: pass:' "$logf" | tail -1 | tr -d '\r')
pass=$(sed -n 's/^# Totals: pass:\([0-9]*\) .*/\1/p' <<<"$totals")
fail=$(sed -n 's/^# Totals: pass:[0-9]* fail:\([0-9]*\) .*/\1/p' <<<"$totals")
pass=${pass:-0} fail=${fail:-0}
if [ -z "$totals" ]; then
    problem "no selftest totals in the log"
elif [ "$fail" -ne 0 ]; then
    problem "$fail selftest(s) failed:"
    grep -a '^not ok\|^# *not ok' "$logf" | tr -d '\r' | sed 's/^/    /' >&2
fi
[ "$pass" -gt 0 ] || [ -z "$totals" ] || problem "no selftest passed"
echo "guest: $pass passed, $fail failed"
[ "$problems" -eq 0 ]
