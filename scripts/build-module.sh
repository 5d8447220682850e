#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build batchprobe.ko out of tree. KDIR defaults to the cached test kernel
# (built on demand); set KDIR to build against any 6.12+ tree with CONFIG_RUST.
# Extra arguments go to make (e.g. CLIPPY=1).
# A module must be built with its kernel's own compiler and rustc
# (scripts/lib.sh's kernel_toolchain): LLVM= defaults to the clang named in
# KDIR's .config (CONFIG_CC_VERSION_TEXT), LIBCLANG_PATH (for bindgen) to
# that clang's libclang, CC= to a GCC-built kernel's GCC; set any to
# override. A rustc other than CONFIG_RUSTC_VERSION_TEXT's is refused.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if [ -z "${KDIR:-}" ]; then
    KDIR=$("$BP_ROOT/scripts/build-kernel.sh")
fi
[ -f "$KDIR/Makefile" ] || die "module: KDIR=$KDIR is not a kernel tree"
bindgen=$(bindgen_bin) || die "module: bindgen not found (run scripts/install-deps.sh)"
kernel_toolchain "$KDIR"
log "module: building against $KDIR (${kcc_args[*]}, $("$BP_RUSTC" --version))"
kbuild_dir module "$BP_ROOT" "$BP_ROOT/rust/bindings_generated.rs" "$@"
[ -f "$BP_ROOT/batchprobe.ko" ] || die "module: batchprobe.ko missing after build"
echo "$BP_ROOT/batchprobe.ko"
