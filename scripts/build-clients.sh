#!/usr/bin/env bash
# Build the sample in-kernel API clients (clients/c, clients/rust) against
# KDIR and batchprobe's Module.symvers (KBUILD_EXTRA_SYMBOLS), with the
# kernel's own compiler, as build-module.sh builds batchprobe.ko (run that
# first). Prints the two .ko paths.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -n "${KDIR:-}" ] || KDIR=$("$BP_ROOT/scripts/build-kernel.sh")
[ -f "$BP_ROOT/Module.symvers" ] || die "clients: build batchprobe.ko first (no Module.symvers)"
grep -q batchprobe_create "$BP_ROOT/Module.symvers" \
    || die "clients: Module.symvers lacks batchprobe_create"
bindgen=$(bindgen_bin) || die "clients: bindgen not found (run scripts/install-deps.sh)"
user_libclang=${LIBCLANG_PATH:-}
use_clang "$(kernel_clang "$KDIR")"
llvm=${LLVM:-$BP_LLVM}
export LIBCLANG_PATH=${user_libclang:-$LIBCLANG_PATH}
for c in c rust; do
    dir=$BP_ROOT/clients/$c
    stamp=$dir/.batchprobe-kdir
    if [ "$(cat "$stamp" 2>/dev/null)" != "$KDIR" ]; then
        make -C "$KDIR" M="$dir" LLVM="$llvm" RUSTC="$BP_RUSTC" clean >/dev/null 2>&1 || true
        rm -f "$dir/batchprobe_bindings.rs"
        echo "$KDIR" > "$stamp"
    fi
    out=$(mktemp)
    make -C "$KDIR" M="$dir" LLVM="$llvm" RUSTC="$BP_RUSTC" BINDGEN="$bindgen" \
        KBUILD_EXTRA_SYMBOLS="$BP_ROOT/Module.symvers" "$@" modules 2>&1 | tee "$out" >&2 \
        || { rm -f "$out"; die "clients: building clients/$c failed"; }
    if grep -E 'warning:|objtool:' "$out" >/dev/null; then
        rm -f "$out"
        die "clients: building clients/$c printed warnings (see above)"
    fi
    rm -f "$out"
done
ls "$BP_ROOT/clients/c/bpclient_c.ko" "$BP_ROOT/clients/rust/bpclient_rs.ko"
