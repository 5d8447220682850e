#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Where a direct-set attach spends its time (`make profile-direct`; guest
# side, bp.mode=profile-direct, parameters bp.bench_N, _RUNS, _OPTS, _FUNCS).
# Attaches N functions as one set per create option in OPTS (--one-ops: one
# ftrace_ops; --fprobe; --one-by-one: one ops per function), RUNS times
# each, with a kprobe event on entry and return of each kernel function in
# FUNCS; prints the set's attach time and each function's calls and total
# time from the trace buffer's timestamps. The kprobe events add their own
# cost to every call they see: probe few, rarely called functions.
. ./bp_lib.sh
T=/sys/kernel/tracing
N=${BP_BENCH_N:-1000}
RUNS=${BP_BENCH_RUNS:-3}
FUNCS=${BP_BENCH_FUNCS:-text_poke_bp_batch}
insmod "$BP_KO" || exit 1
i=0
for f in $FUNCS; do
    echo "p:s$i/ $f" >> $T/kprobe_events && echo "r:e$i/ $f" >> $T/kprobe_events \
        || echo "PROFILE cannot probe $f"
    i=$((i + 1))
done
echo 100000 > $T/buffer_size_kb
echo "PROFILE ftrace-able functions: $(wc -l < $T/available_filter_functions)"
for run in $(seq 1 "$RUNS"); do
    for opt in ${BP_BENCH_OPTS:---one-ops --fprobe}; do
        echo > $T/trace
        echo 1 > $T/events/kprobes/enable
        bp_ctl "d:x$run/ * max=$N\n"
        bp_ctl "create x$run ${opt#--one-ops}\n" || cat $BP_DEBUGFS/last_error
        echo 0 > $T/events/kprobes/enable
        echo "PROFILE run=$run $opt functions=$(bp_field x$run direct)" \
            "register_ms=$(($(bp_timing x$run register_ns) / 1000000))" \
            "attach_ms=$(($(bp_timing x$run attach_ns) / 1000000))"
        grep -v '^#' $T/trace | awk -v funcs="$FUNCS" '
          BEGIN { n = split(funcs, f, " ") }
          {
            for (k = 1; k <= NF; k++)
              if ($k ~ /^[0-9]+\.[0-9]+:$/) { t = substr($k, 1, length($k) - 1); ev = $(k + 1); break }
            sub(":", "", ev); id = substr(ev, 2) + 1
            if (ev ~ /^s/) st[id] = t
            else if (id in st) { tot[id] += t - st[id]; cnt[id]++ }
          }
          END { for (k = 1; k <= n; k++) if (cnt[k])
                  printf "PROFILE   %-30s calls=%-6d total_ms=%.1f\n", f[k], cnt[k], tot[k] * 1000 }'
        bp_ctl "unregister x$run --sync\n"
    done
done
echo > $T/kprobe_events
rmmod batchprobe
