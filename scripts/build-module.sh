#!/usr/bin/env bash
# Build batchprobe.ko out of tree. KDIR defaults to the cached test kernel
# (built on demand); set KDIR to build against any 6.12+ tree with CONFIG_RUST.
# Extra arguments go to make (e.g. CLIPPY=1).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if [ -z "${KDIR:-}" ]; then
    KDIR=$("$BP_ROOT/scripts/build-kernel.sh")
fi
[ -f "$KDIR/Makefile" ] || die "module: KDIR=$KDIR is not a kernel tree"
bindgen=$(bindgen_bin) || die "module: bindgen not found (run scripts/install-deps.sh)"
log "module: building against $KDIR"
# Kbuild does not notice that KDIR changed (say from the test kernel to the
# bench kernel): the module would keep the other kernel's struct module.
stamp=$BP_ROOT/.batchprobe-kdir
if [ "$(cat "$stamp" 2>/dev/null)" != "$KDIR" ]; then
    make -C "$KDIR" M="$BP_ROOT" LLVM=1 RUSTC="$BP_RUSTC" clean >/dev/null 2>&1 || true
    rm -f "$BP_ROOT/rust/bindings_generated.rs"
    echo "$KDIR" > "$stamp"
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
make -C "$KDIR" M="$BP_ROOT" LLVM=1 RUSTC="$BP_RUSTC" BINDGEN="$bindgen" "$@" modules 2>&1 | tee "$out" >&2 \
    || die "module: build failed"
# Warnings are errors here: an objtool warning on Rust code usually means a
# panic path objtool does not know is noreturn, i.e. code that can panic.
if grep -E 'warning:|objtool:' "$out" >/dev/null; then
    die "module: the build printed warnings (see above); treat them as errors"
fi
[ -f "$BP_ROOT/batchprobe.ko" ] || die "module: batchprobe.ko missing after build"
echo "$BP_ROOT/batchprobe.ko"
