#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Judge a guest console log. Usage: check-log.sh LOG EXPECTED_CPUS [--no-tests]
# Prints "guest: P passed, F failed, S skipped" and one line per problem found
# (the skipped cases and programs, with their reasons, go to LOG.skips);
# exits non-zero when the guest did not finish, saw the wrong CPU count,
# reported a failing test, or the kernel printed a splat - even if every
# test said ok. POSIX sh (make bundle runs it under busybox on hosts that
# have nothing else), so it sources nothing.
set -u
log() { printf '[batchprobe] %s\n' "$*" >&2; }

logf=$1 cpus=$2 tests=${3:-}
problems=0
problem() { log "FAIL: $*"; problems=$((problems + 1)); }

# Kernel splats. "Call Trace:" catches stack dumps that carry no other banner;
# an RCU stall report's first line ("detected stalls on CPUs/tasks") counts
# on its own, its dump may come much later or not at all.
splat_re='WARNING:|BUG:|Oops|KASAN|possible recursive locking|possible circular locking|suspicious RCU usage|suspected memory leak|kmemleak: suspected|unreferenced object|Call Trace:|Kernel panic|general protection fault|self-detected stall|detected stalls on CPUs|INFO: task .* blocked|UBSAN'
# Not a splat: the ORC unwinder's one-time note when an unwind of the current
# task starts in an interrupt taken on fgraph's return_to_handler tail (7.3;
# printk_deferred_once, no backtrace; selftests/bp_lib.sh, bp_kernel_warnings,
# says more). Only that exact line is left out.
unwind_note='WARNING: stack going in the wrong direction? at return_to_handler+'
if grep -aEn "$splat_re" "$logf" | grep -avF "$unwind_note" >"$logf.splats"; then
    problem "kernel splat in the console log ($(wc -l <"$logf.splats") lines), first ones:"
    head -5 "$logf.splats" | sed 's/^/    /' >&2
    # The first splat in ten lines (CI shows a run's last lines only, and a
    # trace's banner is its first): which program was running, the line
    # before the banner (a WARN's message, or "cut here"), the banner, the
    # first RIP line after it and the first six sure frames (no "?", not
    # the <IRQ>/<TASK> marks) of the first call trace after it. The whole
    # report is in the console log, at the line said.
    first=$(head -1 "$logf.splats" | cut -d: -f1)
    prog=$(head -n "$first" "$logf" | grep -a '^# selftests: ' | tail -1)
    # Kept in LOG.first-splat as well: check.sh prints it once more last of
    # all, below the list of failed cases (which a broken run makes long).
    log "the first splat, at line $first of $logf (${prog:-before the first selftest}):"
    from=$((first - 1))
    [ "$from" -ge 1 ] || from=1
    tr -d '\r' < "$logf" | sed -n "$from,$((first + 400))p" | awk -v banner=$((first - from + 1)) '
        NR < banner { prev = $0; next }
        NR == banner { if (prev != "") print "    " prev; print "    " $0; frames = 6; next }
        frames == 0 || /---\[ end trace/ { exit }
        /RIP: [0-9]+:/ && !rip { print "    " $0; rip = 1 }
        trace && !/(^|\]) +\? / && !/<\/?(TASK|IRQ|NMI)>/ { print "    " $0; frames-- }
        /Call Trace:/ { trace = 1 }' | tee "$logf.first-splat" >&2
else
    rm -f "$logf.first-splat"
fi

# Lines the console dropped (printk's "** N printk messages dropped **")
# may have held a splat: such a run cannot be judged clean.
dropped=$(grep -a -m 1 'printk messages dropped' "$logf" | tr -d '\r')
[ -z "$dropped" ] || problem "the console dropped kernel messages ($dropped): a splat may be missing"

start=$(grep -a 'BATCHPROBE-GUEST-START' "$logf" | tail -1)
if [ -z "$start" ]; then
    problem "guest never reached /init (see $logf)"
else
    seen=$(echo "$start" | sed -n 's/.*nproc=\([0-9]*\).*/\1/p')
    [ "$seen" = "$cpus" ] || problem "guest sees $seen CPUs, asked for $cpus"
fi
done_line=$(grep -a 'BATCHPROBE-GUEST-DONE' "$logf" | tail -1 | tr -d '\r')
if [ -z "$done_line" ]; then
    problem "guest did not finish its run (hang, crash or timeout; see $logf)"
elif [ "${done_line##*rc=}" != 0 ]; then
    problem "the guest's run ended with rc=${done_line##*rc=} (\"$done_line\": a selftest failed, kmemleak reported a leak, or the mode failed; see $logf)"
fi

if [ "$tests" = --no-tests ]; then
    [ "$problems" -eq 0 ]
    exit
fi
# The kselftest runner's output: its plan "1..N", then per program
# "# selftests: batchprobe: P", the program's KTAP nested under "# " (its plan
# "# 1..K", "# ok|not ok I NAME [# SKIP REASON]" per case, ending "# # Totals:
# pass:N fail:N xfail:N xpass:N skip:N error:N"), then "ok|not ok N selftests:
# batchprobe: P [# SKIP|# TIMEOUT ...|# exit=N]". Cases passed, failed and
# skipped are summed over the programs; a program that failed without
# reporting a failing case (it died, timed out, or its plan did not match)
# counts one failure. What the log cannot vouch for is a failure too, named:
# a program whose cases do not match its own plan (one died half way, or a
# result line was broken by console output), a program that started and never
# ended, one that printed no plan at all, fewer programs than the runner
# planned.
rm -f "$logf.skips"
judged=$(tr -d '\r' < "$logf" | awk -v skips="$logf.skips" '
    function close_prog(how) {
        if (prog == "") return
        if (plan > 0 && cases != plan)
            bad[++nbad] = prog ": planned " plan " cases, reported " cases " (died half way, or a result line broken by console output)"
        if (how == "") bad[++nbad] = prog ": started, never ended (the run stopped in it)"
        else if (plan < 0 && how == "end")
            bad[++nbad] = prog ": printed no KTAP plan (it ran none of its cases, or its output was lost)"
        prog = ""
    }
    /^1\.\.[0-9]+$/ && runner == "" { runner = substr($0, 4) + 0; next }
    /^# selftests: / { close_prog("next"); prog = $NF; plan = -1; cases = 0; last = -1; next }
    /^# 1\.\.[0-9]+/ {
        v = $2; sub(/^1\.\./, "", v); plan = v + 0
        if ($0 ~ /# SKIP/) { reason = $0; sub(/^.*# SKIP */, "", reason) }
        next
    }
    /^# (ok|not ok) [0-9]+ / {
        cases++
        if ($0 ~ /# SKIP/) {
            sk++; r = $0; sub(/^# ok [0-9]+ /, "", r); sub(/ *# SKIP.*$/, "", r)
            print prog ": " r > skips
        }
        next
    }
    /^# # Totals: pass:/ {
        split($0, w, /[: ]+/)
        for (i = 1; i < length(w); i++) {
            if (w[i] == "pass") { p += w[i + 1] }
            if (w[i] == "fail") { f += w[i + 1]; last = w[i + 1] }
            if (w[i] == "error") { f += w[i + 1]; last += w[i + 1] }
        }
        next
    }
    /^(ok|not ok) [0-9]+ selftests: / {
        n++
        if ($0 ~ /^not ok/ && last <= 0) f++
        if ($0 ~ /# SKIP/ && plan <= 0) {
            sk++; r = reason; if (r == "") r = "(no reason given)"
            print prog ": the whole program: " r > skips
        }
        close_prog("end"); reason = ""
        next
    }
    END {
        close_prog("")
        if (runner != "" && n != runner)
            bad[++nbad] = "the runner planned " runner " programs, " n " reported"
        print n + 0, p + 0, f + 0, sk + 0
        for (i = 1; i <= nbad; i++) print bad[i]
    }')
counts=$(echo "$judged" | head -1)
set -- $counts
programs=$1 pass=$2 fail=$3 skipped=$4
echo "$judged" | tail -n +2 | while IFS= read -r line; do
    [ -n "$line" ] && log "FAIL: $line"
done
unvouched=$(echo "$judged" | tail -n +2 | grep -c .)
problems=$((problems + unvouched))
totals=$programs
if [ "$programs" -eq 0 ]; then
    problem "no selftest program results in the log"
elif [ "$fail" -ne 0 ]; then
    problem "$fail selftest(s) failed:"
    # Each failing case under the program it belongs to, with what the
    # program printed about it (its "# " lines since the case before it,
    # the last 10), so that a log seen only through this summary says why.
    tr -d '\r' < "$logf" | awk '
        /^# selftests: / { prog = $NF; nmsg = 0; next }
        /^# # / { msg[++nmsg] = $0; next }
        /^# *ok / { nmsg = 0; next }
        /^# *not ok / {
            sub(/^# */, ""); print "    " prog ": " $0
            for (i = (nmsg > 10 ? nmsg - 9 : 1); i <= nmsg; i++) {
                m = msg[i]; sub(/^# # /, "", m); print "        " m
            }
            nmsg = 0; next
        }
        /^not ok / { print "    " $0 }' >&2
fi
[ "$pass" -gt 0 ] || [ "$totals" -eq 0 ] || problem "no selftest passed"
echo "guest: $pass passed, $fail failed, $skipped skipped"
[ "$problems" -eq 0 ]
