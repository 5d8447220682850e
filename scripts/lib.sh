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
