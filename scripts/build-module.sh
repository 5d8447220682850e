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
make -C "$KDIR" M="$BP_ROOT" LLVM=1 RUSTC="$BP_RUSTC" BINDGEN="$bindgen" "$@" modules >&2 \
    || die "module: build failed"
[ -f "$BP_ROOT/batchprobe.ko" ] || die "module: batchprobe.ko missing after build"
echo "$BP_ROOT/batchprobe.ko"
