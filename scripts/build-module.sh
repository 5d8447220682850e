#!/usr/bin/env bash
# Build batchprobe.ko out of tree. KDIR defaults to the cached test kernel
# (built on demand); set KDIR to build against any 6.12+ tree with CONFIG_RUST.
# Extra arguments go to make (e.g. CLIPPY=1).
# A module must be built with its kernel's own compiler: LLVM= defaults to the
# clang named in KDIR's .config (CONFIG_CC_VERSION_TEXT), LIBCLANG_PATH (for
# bindgen) to that clang's libclang; set either to override.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if [ -z "${KDIR:-}" ]; then
    KDIR=$("$BP_ROOT/scripts/build-kernel.sh")
fi
[ -f "$KDIR/Makefile" ] || die "module: KDIR=$KDIR is not a kernel tree"
bindgen=$(bindgen_bin) || die "module: bindgen not found (run scripts/install-deps.sh)"
user_libclang=${LIBCLANG_PATH:-}
use_clang "$(kernel_clang "$KDIR")"
llvm=${LLVM:-$BP_LLVM}
export LIBCLANG_PATH=${user_libclang:-$LIBCLANG_PATH}
log "module: building against $KDIR (LLVM=$llvm)"
# Kbuild does not notice that KDIR changed (say from the test kernel to the
# bench kernel): the module would keep the other kernel's struct module.
stamp=$BP_ROOT/.batchprobe-kdir
if [ "$(cat "$stamp" 2>/dev/null)" != "$KDIR" ]; then
    make -C "$KDIR" M="$BP_ROOT" LLVM="$llvm" RUSTC="$BP_RUSTC" clean >/dev/null 2>&1 || true
    rm -f "$BP_ROOT/rust/bindings_generated.rs"
    echo "$KDIR" > "$stamp"
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
make -C "$KDIR" M="$BP_ROOT" LLVM="$llvm" RUSTC="$BP_RUSTC" BINDGEN="$bindgen" "$@" modules 2>&1 | tee "$out" >&2 \
    || die "module: build failed"
# Warnings are errors here: an objtool warning on Rust code usually means a
# panic path objtool does not know is noreturn, i.e. code that can panic.
if grep -E 'warning:|objtool:' "$out" >/dev/null; then
    die "module: the build printed warnings (see above); treat them as errors"
fi
[ -f "$BP_ROOT/batchprobe.ko" ] || die "module: batchprobe.ko missing after build"
echo "$BP_ROOT/batchprobe.ko"
