# Shared settings for batchprobe's scripts; sourced, not run.
# shellcheck shell=bash

BP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BP_CACHE=${BP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/batchprobe}
# Debian's rustc-web: the only toolchain here with a rust-src the kernel accepts.
BP_RUSTC=${BP_RUSTC:-/usr/bin/rustc}
export PATH="$HOME/.cargo/bin:$PATH"

log() { printf '[batchprobe] %s\n' "$*" >&2; }
die() { printf '[batchprobe] error: %s\n' "$*" >&2; exit 1; }

bindgen_bin() {
    local b
    for b in "$HOME/.cargo/bin/bindgen" "$(command -v bindgen 2>/dev/null || true)"; do
        [ -n "$b" ] && [ -x "$b" ] && { echo "$b"; return 0; }
    done
    return 1
}

# The clang major version each kernel flavor is built with. A distro-like kernel
# needs clang >= 15 (return thunks and call-depth tracking); the others use
# Debian 12's default clang (14).
flavor_clang() {
    case "$1" in
        distro) echo "${BP_DISTRO_CLANG:-19}" ;;
        *) echo "${BP_CLANG:-14}" ;;
    esac
}

# Sets BP_LLVM (the LLVM= value for make) and exports LIBCLANG_PATH for the
# clang major version $1. bindgen-cli otherwise loads the newest libclang
# installed, which rejects an older clang's kernel flags (and vice versa).
use_clang() {
    local major=$1
    command -v "clang-$major" >/dev/null || die "clang-$major not found (run scripts/install-deps.sh)"
    BP_LLVM=-$major
    export LIBCLANG_PATH=/usr/lib/llvm-$major/lib
}

# The clang major version a built kernel tree was compiled with, from its
# .config (CONFIG_CC_VERSION_TEXT): a module must use its kernel's compiler.
kernel_clang() {
    local text
    text=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$1/.config" 2>/dev/null)
    case "$text" in
        *clang\ version\ *) sed 's/.*clang version \([0-9]*\).*/\1/' <<<"$text" ;;
        *) die "$1/.config: not built with clang (CONFIG_CC_VERSION_TEXT=\"$text\"); batchprobe needs LLVM=1 kernels" ;;
    esac
}

# kbuild_dir WHAT DIR GENERATED [MAKE ARGS...]: builds the out-of-tree
# modules in DIR against $KDIR with LLVM=$llvm and BINDGEN=$bindgen (set by
# the caller). Kbuild does not notice that KDIR changed (say from the test
# kernel to the bench kernel): a stamp file does, and then DIR is cleaned
# and GENERATED (bindgen output, "" for none) removed, so no module keeps
# another kernel's struct module. Warnings are errors: an objtool warning
# on Rust code usually means a panic path objtool does not know is
# noreturn, i.e. code that can panic. WHAT names DIR in messages.
kbuild_dir() {
    local what=$1 dir=$2 generated=$3 out rc=0
    shift 3
    if [ "$(cat "$dir/.batchprobe-kdir" 2>/dev/null)" != "$KDIR" ]; then
        make -C "$KDIR" M="$dir" LLVM="$llvm" RUSTC="$BP_RUSTC" clean >/dev/null 2>&1 || true
        [ -z "$generated" ] || rm -f "$generated"
        echo "$KDIR" > "$dir/.batchprobe-kdir"
    fi
    out=$(mktemp)
    make -C "$KDIR" M="$dir" LLVM="$llvm" RUSTC="$BP_RUSTC" BINDGEN="$bindgen" "$@" modules 2>&1 \
        | tee "$out" >&2 || rc=1
    if [ "$rc" -eq 0 ] && grep -E 'warning:|objtool:' "$out" >/dev/null; then rc=2; fi
    rm -f "$out"
    [ "$rc" -ne 1 ] || die "$what: build failed"
    [ "$rc" -ne 2 ] || die "$what: the build printed warnings (see above); treat them as errors"
}
