#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install batchprobe's kselftest collection (selftests/) as a kselftest tree,
# with the kernel's own machinery from KDIR's tools/testing/selftests: its
# runner (run_kselftest.sh, kselftest/runner.sh, kselftest/ktap_helpers.sh),
# lib.mk's install rule for the collection, and lib.mk's emit_tests for
# kselftest-list.txt, as the kernel's top-level selftests install does.
# Usage: install-selftests.sh KDIR OUTDIR [MODULE.ko...]
# The modules given are installed into the collection, where the tests look
# for them. Run the tree with: OUTDIR/run_kselftest.sh -c batchprobe
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kdir=$1 out=$2; shift 2
ks=$kdir/tools/testing/selftests
[ -f "$ks/lib.mk" ] && [ -f "$ks/run_kselftest.sh" ] || die "selftests: no kselftest machinery in $ks"
command -v rsync >/dev/null || die "selftests: lib.mk's install rule needs rsync (run scripts/install-deps.sh)"
rm -rf "$out"
mkdir -p "$out/kselftest"
for f in module.sh runner.sh prefix.pl ktap_helpers.sh; do
    install -m 744 "$ks/kselftest/$f" "$out/kselftest/"
done
install -m 744 "$ks/run_kselftest.sh" "$out/"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
# bpfpeer's static libbpf, built once per kernel tree (its source and
# UAPI are the tree's): keyed by the tree's path and libbpf's sources.
libbpf=$BP_CACHE/libbpf-$( (echo "$kdir"; cat "$kdir"/tools/lib/bpf/*.[ch] 2>/dev/null) | sha256sum | cut -c1-12)
mkdir -p "$BP_CACHE"
flock "$BP_CACHE/.libbpf.lock" make -s --no-print-directory -C "$BP_ROOT/selftests" \
    KSELFTEST_DIR="$ks" OUTPUT="$build" LIBBPF_OUT="$libbpf" "$libbpf/libbpf.a" >&2 \
    || die "selftests: building $kdir's libbpf failed (see $libbpf/build.log)"
make -s --no-print-directory -C "$BP_ROOT/selftests" KSELFTEST_DIR="$ks" OUTPUT="$build" \
    LIBBPF_OUT="$libbpf" INSTALL_PATH="$out/batchprobe" install >&2 \
    || die "selftests: building or installing the collection failed"
make -s --no-print-directory -C "$BP_ROOT/selftests" KSELFTEST_DIR="$ks" OUTPUT="$build" \
    COLLECTION=batchprobe emit_tests > "$out/kselftest-list.txt"
[ -s "$out/kselftest-list.txt" ] || die "selftests: empty kselftest-list.txt"
# test_fetchargs_oracle.sh's expectations: what batchprobe's fetch-argument
# compiler makes of each case of the corpus for this tree's release and
# config (the guest then asks the tree's own kprobe_events the same).
(cd "$BP_ROOT/tests" && cargo run --quiet --bin fetch-oracle -- "$kdir" "$BP_ROOT/selftests/fetchargs.corpus") \
    > "$out/batchprobe/fetchargs.expected" || die "selftests: fetch-oracle failed for $kdir"
for ko in "$@"; do install -m 644 "$ko" "$out/batchprobe/"; done
echo "$out"
