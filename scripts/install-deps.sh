#!/usr/bin/env bash
# Install everything batchprobe needs on a Debian 12 machine; idempotent.
# Debian packages for the kernel, Rust-for-Linux, QEMU and the initramfs,
# plus bindgen-cli from crates.io. rsync: the kselftest install rules use it. clang-19 builds the distro flavor (return
# thunks and call-depth tracking need clang >= 15; Debian 12's default is 14).
# dwarves (pahole) writes the BTF of the distro and debug flavors.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS=(linux-source-6.12 rustc-web rust-web-src clang lld llvm libclang-dev
      qemu-system-x86 busybox-static flex bison bc libelf-dev libssl-dev cpio rust-web-clippy
      kmod make gcc libc6-dev file xz-utils rsync
      clang-19 lld-19 llvm-19 dwarves)
BINDGEN_VERSION=${BINDGEN_VERSION:-0.73.2}

missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
        || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    log "installing Debian packages: ${missing[*]}"
    SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
fi

if ! bindgen_bin >/dev/null 2>&1; then
    log "installing bindgen-cli $BINDGEN_VERSION from crates.io"
    cargo install --locked --quiet bindgen-cli --version "$BINDGEN_VERSION"
fi
log "dependencies present (rustc: $(/usr/bin/rustc --version), bindgen: $("$(bindgen_bin)" --version))"
