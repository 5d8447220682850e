#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make bench-publish`: BENCHMARKS.md and its plots (docs/bench/*.svg) made
# from the raw results committed under bench/results/ alone, by
# tools/benchreport (`benchreport publish`): the latest run of each kind
# (`make bench`'s DATE-HHMM-FLAVOR/raw.txt + meta.txt, `make bench-cli`'s
# DATE-cli-FLAVOR/results.txt) per flavor. `make bench`, `make bench-stock`
# and `make bench-cli` call it after adding their run; tools/benchreport's
# tests check that the committed BENCHMARKS.md is what it makes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

(cd "$BP_ROOT/tools/benchreport" && cargo run --quiet --release -- publish \
    --results "$BP_ROOT/bench/results" --markdown "$BP_ROOT/BENCHMARKS.md" \
    --svg-dir "$BP_ROOT/docs/bench")
log "bench-publish: BENCHMARKS.md, docs/bench/*.svg"
