#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make bench-cli`: what the batchprobe command costs over the module's
# own interface (selftests/guest-bench-cli.sh), on BP_FLAVORS (default:
# stock-7.3, Debian's own image, where `*` is about 45,000 functions).
# The guest's BENCH-CLI lines are kept under
# bench/results/DATE-cli-FLAVOR/results.txt with what they were measured on
# (commit, kernel, host, QEMU TCG), and BENCHMARKS.md is republished from
# bench/results/ (scripts/bench-publish.sh), its table among the rest.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

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
done
"$BP_ROOT/scripts/bench-publish.sh"
