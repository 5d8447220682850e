#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Judge a guest console log. Usage: check-log.sh LOG EXPECTED_CPUS [--no-tests]
# Prints "guest: P passed, F failed" and one line per problem found;
# exits non-zero when the guest did not finish, saw the wrong CPU count,
# reported a failing test, or the kernel printed a splat - even if every
# test said ok. POSIX sh (make bundle runs it under busybox on hosts that
# have nothing else), so it sources nothing.
set -u
log() { printf '[batchprobe] %s\n' "$*" >&2; }

logf=$1 cpus=$2 tests=${3:-}
problems=0
problem() { log "FAIL: $*"; problems=$((problems + 1)); }

# Kernel splats. "Call Trace:" catches stack dumps that carry no other banner.
splat_re='WARNING:|BUG:|Oops|KASAN|possible recursive locking|possible circular locking|suspicious RCU usage|suspected memory leak|kmemleak: suspected|unreferenced object|Call Trace:|Kernel panic|general protection fault|self-detected stall|INFO: task .* blocked|UBSAN'
# Not a splat: the ORC unwinder's one-time note when an unwind of the current
# task starts in an interrupt taken on fgraph's return_to_handler tail (7.3;
# printk_deferred_once, no backtrace; selftests/bp_lib.sh, bp_kernel_warnings,
# says more). Only that exact line is left out.
unwind_note='WARNING: stack going in the wrong direction? at return_to_handler+'
if grep -aEn "$splat_re" "$logf" | grep -avF "$unwind_note" >"$logf.splats"; then
    problem "kernel splat in the console log ($(wc -l <"$logf.splats") lines), first ones:"
    head -5 "$logf.splats" | sed 's/^/    /' >&2
    # The first splat whole (CI shows a run's last lines only): which
    # program was running, then from the "cut here" line (a WARN's message
    # comes before its banner) to the end of its trace, 60 lines at most.
    first=$(head -1 "$logf.splats" | cut -d: -f1)
    prog=$(head -n "$first" "$logf" | grep -a '^# selftests: ' | tail -1)
    log "the first splat, at line $first (${prog:-before the first selftest}):"
    from=$((first - 4))
    [ "$from" -ge 1 ] || from=1
    sed -n "$from,$((from + 59))p" "$logf" | awk '{ print "    " $0 } /---\[ end trace/ { exit }' >&2
fi

start=$(grep -a 'BATCHPROBE-GUEST-START' "$logf" | tail -1)
if [ -z "$start" ]; then
    problem "guest never reached /init (see $logf)"
else
    seen=$(echo "$start" | sed -n 's/.*nproc=\([0-9]*\).*/\1/p')
    [ "$seen" = "$cpus" ] || problem "guest sees $seen CPUs, asked for $cpus"
fi
grep -aq 'BATCHPROBE-GUEST-DONE' "$logf" \
    || problem "guest did not finish its run (hang, crash or timeout; see $logf)"

if [ "$tests" = --no-tests ]; then
    [ "$problems" -eq 0 ]
    exit
fi
# The kselftest runner's output: per program "# selftests: batchprobe: P",
# its KTAP nested under "# " (ending "# # Totals: pass:N fail:N ..."), then
# "ok|not ok N selftests: batchprobe: P [# SKIP|# TIMEOUT ...|# exit=N]".
# Cases passed and failed are summed over the programs' totals; a program
# that failed without reporting a failing case (it died, timed out, or its
# plan did not match) counts one failure.
counts=$(tr -d '\r' < "$logf" | awk '
    /^# # Totals: pass:/ {
        split($0, w, /[: ]+/)
        for (i = 1; i < length(w); i++) {
            if (w[i] == "pass") { p += w[i + 1] }
            if (w[i] == "fail") { f += w[i + 1]; last = w[i + 1] }
        }
        next
    }
    /^# selftests: / { last = -1; next }
    /^(ok|not ok) [0-9]+ selftests: / { n++ }
    /^not ok [0-9]+ selftests: / { if (last <= 0) f++ }
    END { print n + 0, p + 0, f + 0 }')
set -- $counts
programs=$1 pass=$2 fail=$3
totals=$programs
if [ "$programs" -eq 0 ]; then
    problem "no selftest program results in the log"
elif [ "$fail" -ne 0 ]; then
    problem "$fail selftest(s) failed:"
    # Each failing case under the program it belongs to.
    tr -d '\r' < "$logf" | awk '
        /^# selftests: / { prog = $NF; next }
        /^# *not ok / { sub(/^# */, ""); print "    " prog ": " $0; next }
        /^not ok / { print "    " $0 }' >&2
fi
[ "$pass" -gt 0 ] || [ "$totals" -eq 0 ] || problem "no selftest passed"
echo "guest: $pass passed, $fail failed"
[ "$problems" -eq 0 ]
