#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make bench-cli`: what the batchprobe command costs over the module's
# own interface (selftests/guest-bench-cli.sh), on BP_FLAVORS (default:
# stock-7.3, Debian's own image, where `*` is about 45,000 functions).
# The guest's BENCH-CLI lines are kept under
# bench/results/DATE-cli-FLAVOR/results.txt with what they were measured on
# (commit, kernel, host, QEMU TCG), and the table made from them is printed.
#   scripts/bench-cli.sh report DIR   prints the table from DIR alone.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# report DIR: the medians of each figure and their ratios, as Markdown.
report() {
    awk '
        $1 != "BENCH-CLI" { next }
        $2 == "kernel" { kernel = $3; next }
        $2 == "stats_probes" { probes = $3; next }
        $2 == "nproc" { next }
        { v = $4; if ($2 ~ /_ms$/) v *= 1e6; n[$2]++; x[$2, n[$2]] = v
          if ($2 == "attach_cli_ms" || $2 == "attach_bare_ns") { split($5, kv, "="); attached = kv[2] } }
        function median(k,   i, j, t, a, c) {
            c = n[k]
            for (i = 1; i <= c; i++) a[i] = x[k, i]
            for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
        }
        function ms(k) { return sprintf("%.1f ms", median(k) / 1e6) }
        function ratio(a, b) { return sprintf("%.2fx", median(a) / median(b)) }
        function first(k) { return sprintf("%.1f ms", x[k, 1] / 1e6) }
        END {
            printf "Kernel %s; `*` = %s functions; medians of %d warm runs each, in alternating order (the boot\x27s first create, a bare write before them: %s).\n\n", kernel, attached, n["attach_cli_ms"], first("attach_first_bare_ns")
            print "| what | batchprobe command | module interface | command / interface |"
            print "| --- | --- | --- | --- |"
            printf "| attach `count \x27*\x27` vs the bare write | %s | %s | %s |\n", ms("attach_cli_ms"), ms("attach_bare_ns"), ratio("attach_cli_ms", "attach_bare_ns")
            printf "| `apply` vs `bpwrite`, whole process | %s | %s | %s |\n", ms("process_apply_ns"), ms("process_bpwrite_ns"), ratio("process_apply_ns", "process_bpwrite_ns")
            printf "| `stats SET` (%s probes) vs `cat stats` | %s | %s | %s |\n", probes, ms("stats_cli_ns"), ms("stats_cat_ns"), ratio("stats_cli_ns", "stats_cat_ns")
            printf "| `stats SET --json` vs `cat stats` | %s | %s | %s |\n", ms("stats_json_ns"), ms("stats_cat_ns"), ratio("stats_json_ns", "stats_cat_ns")
            printf "| `ls` vs `cat sets` | %s | %s | %s |\n", ms("ls_cli_ns"), ms("sets_cat_ns"), ratio("ls_cli_ns", "sets_cat_ns")
        }' "$1/results.txt"
}

if [ "${1:-}" = report ]; then
    report "${2:?usage: bench-cli.sh report DIR}"
    exit 0
fi
# The tree the guests run, said before this script writes into it.
commit=$(git -C "$BP_ROOT" describe --always --dirty)
for f in ${BP_FLAVORS:-stock-7.3}; do
    logf=$BP_ROOT/out/bench-cli-console-$f.log
    boot_mode "$f" bench-cli "$logf" 2400
    dir=$BP_ROOT/bench/results/$(date -u +%Y-%m-%d)-cli-$f
    mkdir -p "$dir"
    {
        echo "# scripts/bench-cli.sh (selftests/guest-bench-cli.sh), $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "# commit $commit, flavor $f, QEMU TCG (thread=single, ${BP_SMP:-2} vCPUs)"
        echo "# host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
        tr -d '\r' < "$logf" | grep -a '^BENCH-CLI '
    } > "$dir/results.txt"
    log "bench-cli: $dir/results.txt"
    report "$dir"
done
