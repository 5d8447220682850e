#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make record-fixtures`: boot each flavor (BP_FLAVORS, default "test
# distro-7.3 stock-7.3") with bp.mode=record (selftests/guest-record.sh)
# and keep the module's files as that kernel wrote them under
# tools/batchprobe/tests/data/FLAVOR/, with a README saying when, from
# which commit and on which kernel: the recorded outputs the batchprobe
# command's host tests read.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavors=${BP_FLAVORS:-test distro-7.3 stock-7.3}
data=$BP_ROOT/tools/batchprobe/tests/data
# The tree the guests run, said before this script writes into it.
commit=$(git -C "$BP_ROOT" describe --always --dirty)
for f in $flavors; do
    logf=$BP_ROOT/out/record-console-$f.log
    boot_mode "$f" record "$logf"
    out=$data/$f
    rm -rf "$out"
    mkdir -p "$out"
    tr -d '\r' < "$logf" | awk -v dir="$out" '
        /^BATCHPROBE-FILE-BEGIN / { file = dir "/" $2; printf "" > file; next }
        /^BATCHPROBE-FILE-END$/ { close(file); file = ""; next }
        file != "" && !/^\[ *[0-9]+\.[0-9]+\] / { print >> file }'
    kernel=$(tr -d '\r' < "$logf" | sed -n 's/.*BATCHPROBE-GUEST-START .*kernel=\([^ ]*\).*/\1/p' | head -1)
    printf 'Recorded by scripts/record-fixtures.sh (selftests/guest-record.sh) on %s\nfrom commit %s, flavor %s, kernel %s, QEMU TCG.\n' \
        "$(date -u +%Y-%m-%d)" "$commit" "$f" "$kernel" > "$out/README"
    log "recorded $f: $(ls "$out" | tr '\n' ' ')"
done
