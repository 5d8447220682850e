#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make check-times-save`: keeps the last check's times (out/check-times.txt,
# written by scripts/check.sh) under bench/results/DATE-HHMM-check-LABEL/
# times.txt, LABEL its flavors joined by '+', and republishes BENCHMARKS.md,
# whose "How long the checks take" table lists every run kept. Only a check
# that ended (its CHECK result line) is kept.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=$BP_ROOT/out/check-times.txt
[ -f "$src" ] || die "check-times-save: no $src (run make check or make check-all first)"
grep -q '^CHECK result ' "$src" || die "check-times-save: $src has no CHECK result line: that check did not end"
label=$(sed -n 's/^CHECK flavors //p' "$src" | tr ' ' '+')
when=$(sed -n '1s/.*, \([0-9-]*\) \([0-9]*\):\([0-9]*\) UTC$/\1-\2\3/p' "$src")
[ -n "$label" ] && [ -n "$when" ] || die "check-times-save: $src: no flavors or date"
dir=$BP_ROOT/bench/results/$when-check-$label
mkdir -p "$dir"
cp "$src" "$dir/times.txt"
log "check-times-save: $dir/times.txt"
"$BP_ROOT/scripts/bench-publish.sh"
