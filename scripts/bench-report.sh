#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make bench-report FROM=DIR`: turns a bench run's raw data into the report
# `make bench` writes: a side-by-side table, per-flavor Markdown tables, CSV,
# JSON and SVG plots (tools/benchreport). DIR holds meta.txt (accel, date,
# host_cpu, vcpus: written by the bundle's `./run bench` and by make bench)
# and one FLAVOR/raw.txt per kernel flavor (the guest's BENCH lines).
# Usage: bench-report.sh DIR; BP_REPORT_MD (DIR/BENCHMARKS.md) and
# BP_REPORT_SVG_DIR (DIR/report) say where the Markdown and the plots go;
# CSV and JSON go to DIR/report; BP_REPORT_NOTE, a sentence on how the
# boots ran, goes under the report's title.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

from=${1:?usage: bench-report.sh DIR}
[ -f "$from/meta.txt" ] || die "bench-report: $from/meta.txt missing (not a bench run's results)"
from=$(cd "$from" && pwd)
meta() { sed -n "s/^$1=//p" "$from/meta.txt" | head -1; }
inputs=()
for raw in "$from"/*/raw.txt; do
    [ -s "$raw" ] || continue
    f=$(basename "$(dirname "$raw")")
    inputs+=(--input "$f=$raw")
done
[ "${#inputs[@]}" -gt 0 ] || die "bench-report: no FLAVOR/raw.txt under $from"
accel=$(meta accel)
case "$accel" in
    kvm) label="KVM, host CPU $(meta host_cpu) ($(meta host_cpus) CPUs)" ;;
    tcg) label="tcg thread=$(meta tcg_thread | grep . || echo single)" ;;
    *) die "bench-report: $from/meta.txt: unknown accel '$accel'" ;;
esac
md=${BP_REPORT_MD:-$from/BENCHMARKS.md}
svg=${BP_REPORT_SVG_DIR:-$from/report}
mkdir -p "$from/report" "$svg"
(cd "$BP_ROOT/tools/benchreport" && cargo run --quiet --release -- \
    "${inputs[@]}" --out-dir "$from/report" --accel "$label" --date "$(meta date)" \
    --markdown "$md" --svg-dir "$svg" ${BP_REPORT_NOTE:+--note "$BP_REPORT_NOTE"})
log "bench-report: $md (CSV, JSON in $from/report; plots in $svg)"
